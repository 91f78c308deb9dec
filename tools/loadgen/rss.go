package main

import (
	"syscall"
	"time"
)

// Topology of the rss workload: 100 brokers × 4,000 topics, 4 per topic.
const (
	rssTopics  = 100_000
	rssBrokers = 100
	rssWidth   = 4
)

// Stable-RSS polling: sample every rssPoll; stable when the last
// rssWindow samples differ by at most rssSlackKB; give up after rssMaxWait.
const (
	rssPoll    = 250 * time.Millisecond
	rssWindow  = 5
	rssSlackKB = 256
	rssMaxWait = 20 * time.Second
)

// rssResult is the memory cost of topic routes.
type rssResult struct {
	Topics, Brokers, Width int
	RegisterS              float64 `json:"register_s"` // all registrations, sequential round trips
	BeforeMB               float64 `json:"before_mb"`
	AfterMB                float64 `json:"after_mb"`            // after registration, stable
	AfterLookupsMB         float64 `json:"after_lookups_mb"`    // after one lookup of every topic
	PerTopicB              float64 `json:"per_topic_bytes"`     // (after - before) / topics
	PerTopicLookupsB       float64 `json:"per_topic_lookups_b"` // (after lookups - before) / topics
	PeakRSSMB              float64 `json:"peak_rss_mb"`         // VmHWM at the end
	Stable                 bool    `json:"stable"`              // every reading settled in time
	SweepS                 float64 `json:"lookup_sweep_s"`      // one lookup of every topic, all conns
	inproc                 bool    // the NameServer is a -serve-namesrv child
}

// runRSS registers 100,000 topics and reads the NameServer's resident set
// before, after registration and after every route was looked up once (the
// NameServer caches encoded route bodies on first lookup).
func (e *env) runRSS() (*rssResult, error) {
	e.log.Info("rss: starting", "topics", rssTopics, "brokers", rssBrokers)
	ns, err := e.namesrv("rss")
	if err != nil {
		return nil, err
	}
	defer ns.stop()
	res := &rssResult{Topics: rssTopics, Brokers: rssBrokers, Width: rssWidth, Stable: true, inproc: e.o.profileDir != ""}
	before, err := res.stableRSS(ns)
	if err != nil {
		return nil, err
	}
	topo := newTopology(rssTopics, rssBrokers, rssWidth)
	reg, err := e.dial(ns.addr)
	if err != nil {
		return nil, err
	}
	defer reg.Close()
	spent, err := registerAll(reg, topo)
	if err != nil {
		return nil, err
	}
	res.RegisterS, res.BeforeMB = spent.Seconds(), kbToMB(before)
	e.log.Info("rss: registered", "seconds", res.RegisterS)
	return res, e.measureRSS(res, ns, topo, before)
}

// measureRSS reads the settled RSS after registration, sweeps lookups over
// all topics, and reads it again.
func (e *env) measureRSS(res *rssResult, ns *child, topo *topology, before int64) error {
	after, err := res.stableRSS(ns)
	if err != nil {
		return err
	}
	res.AfterMB = kbToMB(after)
	res.PerTopicB = float64(after-before) * 1024 / float64(res.Topics)
	load, err := openLoad(ns.addr, e.o.conns, topo.topics, e.o.seed)
	if err != nil {
		return err
	}
	defer load.close()
	start := time.Now()
	if err := load.sweep(); err != nil {
		return err
	}
	res.SweepS = time.Since(start).Seconds()
	swept, err := res.stableRSS(ns)
	if err != nil {
		return err
	}
	res.AfterLookupsMB = kbToMB(swept)
	res.PerTopicLookupsB = float64(swept-before) * 1024 / float64(res.Topics)
	mem, err := readMem(ns.pid())
	res.PeakRSSMB = kbToMB(mem.HWMKB)
	return firstErr(err, ns.alive())
}

// stableRSS polls VmRSS until it settles (or rssMaxWait passes, which
// clears res.Stable) and returns it in kB. An in-process NameServer
// (-profile-dir) is first told to GC and write a heap profile.
func (res *rssResult) stableRSS(ns *child) (int64, error) {
	if res.inproc {
		_ = ns.cmd.Process.Signal(syscall.SIGUSR1)
	}
	var window []int64
	for deadline := time.Now().Add(rssMaxWait); ; time.Sleep(rssPoll) {
		if err := ns.alive(); err != nil {
			return 0, err
		}
		m, err := readMem(ns.pid())
		if err != nil {
			return 0, err
		}
		window = append(window, m.RSSKB)
		if len(window) > rssWindow {
			window = window[1:]
		}
		if len(window) == rssWindow && spread(window) <= rssSlackKB {
			return m.RSSKB, nil
		}
		if time.Now().After(deadline) {
			res.Stable = false
			return m.RSSKB, nil
		}
	}
}

// spread is max − min.
func spread(v []int64) int64 {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return hi - lo
}
