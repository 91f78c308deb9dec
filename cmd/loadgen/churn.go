package main

import (
	"sync/atomic"
	"time"

	"github.com/rmqgo/nameserver/remoting"
)

// Topology of the churn workload: 40 brokers × 2,000 topics, 4 per topic.
const (
	churnTopics  = 20_000
	churnBrokers = 40
	churnWidth   = 4
	// writerPause is how long the writer waits when it is ahead of its share.
	writerPause = 100 * time.Microsecond
)

// churnResult compares lookup latency idle and under re-registration.
type churnResult struct {
	Topics, Brokers, Width int
	RegisterS              float64 `json:"register_s"` // initial registration, sequential
	Idle                   latency `json:"idle"`
	Churn                  latency `json:"churn"`
	P99Ratio               float64 `json:"p99_ratio"` // churn p99 / idle p99
	Registrations          int64   `json:"registrations"`
	WritePct               float64 `json:"write_pct"` // registrations / all operations, measured phase
	RegisterLat            latency `json:"register_latency"`
	PeakRSSMB              float64 `json:"peak_rss_mb"`
}

// runChurn registers 20,000 topics, measures lookups idle, then while a
// separate connection re-registers brokers with a new DataVersion each
// time (so their topics are rebuilt), paced to -churn-pct of operations.
func (e *env) runChurn() (*churnResult, error) {
	e.log.Info("churn: starting", "topics", churnTopics, "brokers", churnBrokers)
	ns, err := e.namesrv("churn")
	if err != nil {
		return nil, err
	}
	defer ns.stop()
	topo := newTopology(churnTopics, churnBrokers, churnWidth)
	reg, err := e.dial(ns.addr)
	if err != nil {
		return nil, err
	}
	defer reg.Close()
	res := &churnResult{Topics: churnTopics, Brokers: churnBrokers, Width: churnWidth}
	spent, err := registerAll(reg, topo)
	if err != nil {
		return nil, err
	}
	res.RegisterS = spent.Seconds()
	return res, e.measureChurn(res, ns, topo)
}

// measureChurn runs the idle and the churn phases on one set of lookup
// connections.
func (e *env) measureChurn(res *churnResult, ns *child, topo *topology) error {
	load, err := openLoad(ns.addr, e.o.conns, topo.topics, e.o.seed)
	if err != nil {
		return err
	}
	defer load.close()
	if res.Idle, err = e.phase(load, ns); err != nil {
		return err
	}
	w, err := e.newWriter(ns.addr, topo, &load.done)
	if err != nil {
		return err
	}
	defer w.c.Close()
	go w.run(time.Now().Add(e.o.warmup + e.o.duration + time.Minute))
	regs0, done0 := w.count.Load(), load.done.Load()
	res.Churn, err = e.phase(load, ns)
	regs, lookups := w.count.Load()-regs0, load.done.Load()-done0
	regLat := w.stop()
	if err == nil {
		err = w.err
	}
	res.Registrations, res.RegisterLat = regs, summarize(regLat, 0)
	res.WritePct = 100 * float64(regs) / float64(max(regs+lookups, 1))
	res.P99Ratio = res.Churn.P99US / max(res.Idle.P99US, 1e-9)
	mem, merr := readMem(ns.pid())
	res.PeakRSSMB = kbToMB(mem.HWMKB)
	return firstErr(err, merr, ns.alive())
}

// phase is a warm-up then a measured run.
func (e *env) phase(load *lookupLoad, ns *child) (latency, error) {
	if _, _, err := load.run(e.o.warmup, false); err != nil {
		return latency{}, err
	}
	samples, wall, err := load.run(e.o.duration, true)
	if err != nil {
		return latency{}, err
	}
	l := summarize(samples, wall)
	e.log.Info("measured", "qps", int(l.QPS), "p99_us", l.P99US)
	return l, ns.alive()
}

// writer re-registers brokers round-robin with a growing DataVersion
// counter, keeping its count at pct% of all operations.
type writer struct {
	c       *remoting.Client
	topo    *topology
	tmpls   []*bodyTemplate
	lookups *atomic.Int64
	pct     int64
	count   atomic.Int64
	lat     []int64
	err     error
	quit    chan struct{}
	done    chan struct{}
}

// newWriter dials the writer's own connection and encodes every body.
func (e *env) newWriter(addr string, topo *topology, lookups *atomic.Int64) (*writer, error) {
	w := &writer{topo: topo, lookups: lookups, pct: int64(e.o.churnPct),
		quit: make(chan struct{}), done: make(chan struct{})}
	for i := range topo.brokers {
		t, err := newBodyTemplate(&topo.brokers[i])
		if err != nil {
			return nil, err
		}
		w.tmpls = append(w.tmpls, t)
	}
	var err error
	w.c, err = e.dial(addr)
	return w, err
}

// run registers until stop or deadline; the first error ends it.
func (w *writer) run(deadline time.Time) {
	defer close(w.done)
	base := w.lookups.Load()
	var buf []byte
	for n := int64(0); time.Now().Before(deadline); {
		select {
		case <-w.quit:
			return
		default:
		}
		if n*(100-w.pct) > (w.lookups.Load()-base)*w.pct {
			time.Sleep(writerPause)
			continue
		}
		i := int(n) % len(w.tmpls)
		buf = w.tmpls[i].body(buf, 2+n) // counter 1 was the initial registration
		start := time.Now()
		if w.err = register(w.c, &w.topo.brokers[i], buf); w.err != nil {
			return
		}
		w.lat = append(w.lat, int64(time.Since(start)))
		n++
		w.count.Store(n)
	}
}

// stop ends the writer and returns its registration latencies (warm-up
// included).
func (w *writer) stop() []int64 {
	close(w.quit)
	<-w.done
	return w.lat
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
