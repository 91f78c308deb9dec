package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rmqgo/nameserver/remoting"
)

// Loads of a scale row (peak RSS over repeated loads).
const (
	maxScaleLoads  = 20 // bound of -scale-loads
	defaultLoads1M = 3  // loads of the 1M row without -scale-loads
)

// loadRun is one load of a scale row's topology: every broker registered
// once, one after the other, over one connection. Load k sends
// DataVersion counter k and writeQueueNums loadQueues(k) on every topic,
// so that from the second load on every topic's route is rebuilt.
type loadRun struct {
	Counter     int64     `json:"data_version_counter"`
	WriteQueues int32     `json:"write_queues"`
	RegisterS   float64   `json:"register_s"`     // round trips, body encoding excluded
	PeakRSSMB   float64   `json:"peak_rss_mb"`    // NameServer VmHWM after the load
	RSSMB       float64   `json:"rss_mb"`         // NameServer VmRSS after the load
	Heap        *heapStat `json:"heap,omitempty"` // with -scale-heap
}

// loadsOf is how many loads row makes: -scale-loads, or by default
// defaultLoads1M for the 1M row and 1 for the others.
func (o options) loadsOf(row scaleRow) int {
	switch {
	case o.scaleLoads > 0:
		return o.scaleLoads
	case row.Topics >= 1_000_000:
		return defaultLoads1M
	default:
		return 1
	}
}

// loadQueues is the write queue count of load k (1-based): writeQueues on
// odd loads, one more on even loads.
func loadQueues(k int) int32 { return writeQueues + int32((k-1)%2) }

// runLoads registers topo n times over reg and reads the NameServer's
// memory after each load.
func (e *env) runLoads(ns *child, reg *remoting.Client, topo *topology, n int) ([]loadRun, error) {
	loads := make([]loadRun, 0, n)
	for k := 1; k <= n; k++ {
		l, err := e.runLoad(ns, reg, topo, k)
		if err != nil {
			return loads, fmt.Errorf("load %d of %d: %w", k, n, err)
		}
		loads = append(loads, l)
	}
	return loads, nil
}

// runLoad makes load k and measures it.
func (e *env) runLoad(ns *child, reg *remoting.Client, topo *topology, k int) (loadRun, error) {
	l := loadRun{Counter: int64(k), WriteQueues: loadQueues(k)}
	spent, err := registerLoad(reg, topo, l.Counter, l.WriteQueues)
	if err != nil {
		return l, err
	}
	l.RegisterS = spent.Seconds()
	mem, err := readMem(ns.pid())
	if err != nil {
		return l, err
	}
	l.PeakRSSMB, l.RSSMB = kbToMB(mem.HWMKB), kbToMB(mem.RSSKB)
	if ns.metricsAddr != "" {
		if l.Heap, err = scrapeHeap(ns.metricsAddr); err != nil {
			e.log.Warn("scale: heap not read", "error", err)
		}
	}
	e.log.Info("scale: loaded", "load", k, "write_queues", l.WriteQueues, "seconds", l.RegisterS,
		"peak_rss_mb", l.PeakRSSMB, "rss_mb", l.RSSMB)
	return l, ns.alive()
}

// maxLoadPeak is the largest peak RSS after any load (MB).
func maxLoadPeak(loads []loadRun) float64 {
	var m float64
	for _, l := range loads {
		m = max(m, l.PeakRSSMB)
	}
	return m
}

// joinLoads formats one figure of every load as "a/b/c".
func joinLoads(loads []loadRun, prec int, f func(loadRun) float64) string {
	parts := make([]string, len(loads))
	for i, l := range loads {
		parts[i] = strconv.FormatFloat(f(l), 'f', prec, 64)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "/")
}

// printLoads writes, for rows loaded more than once or with heap figures,
// every load's figures.
func (r *report) printLoads(w io.Writer) {
	for _, s := range r.Scale {
		if len(s.Loads) < 2 && (len(s.Loads) == 0 || s.Loads[0].Heap == nil) {
			continue
		}
		fmt.Fprintf(w, "scale %d topics, %d loads (write queues %s): registration %s s; peak RSS %s MB (max %.0f); RSS %s MB\n",
			s.Topics, len(s.Loads), joinLoads(s.Loads, 0, func(l loadRun) float64 { return float64(l.WriteQueues) }),
			joinLoads(s.Loads, 2, func(l loadRun) float64 { return l.RegisterS }),
			joinLoads(s.Loads, 0, func(l loadRun) float64 { return l.PeakRSSMB }), s.MaxLoadRSSMB,
			joinLoads(s.Loads, 0, func(l loadRun) float64 { return l.RSSMB }))
		if s.Loads[0].Heap != nil {
			fmt.Fprintf(w, "  Go heap after each load (/metrics): allocated %s MB, live at the last GC %s MB (0: unknown under GOMEMLIMIT)\n",
				joinLoads(s.Loads, 0, func(l loadRun) float64 { return heapOf(l).AllocMB }),
				joinLoads(s.Loads, 0, func(l loadRun) float64 { return heapOf(l).LiveMB }))
		}
	}
}

// heapOf is the load's heap figures, zero when they were not read.
func heapOf(l loadRun) heapStat {
	if l.Heap == nil {
		return heapStat{}
	}
	return *l.Heap
}
