package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rmqgo/nameserver/remoting"
)

// restartResult is the restart storm: every broker registers as fast as
// it can into a freshly started NameServer while clients look up random
// topics, retrying TOPIC_NOT_EXIST.
type restartResult struct {
	Topics, Brokers, Width int
	Writers                int     `json:"writers"`           // registering connections
	RegisteredS            float64 `json:"registered_s"`      // start → every registration acknowledged
	SweepS                 float64 `json:"sweep_s"`           // then one lookup of every topic, all found
	AllAnswerS             float64 `json:"all_answer_s"`      // RegisteredS + SweepS
	Lookups                latency `json:"lookups"`           // during the storm, misses included
	Misses                 int64   `json:"misses"`            // TOPIC_NOT_EXIST answers during the storm
	PeakRSSMB              float64 `json:"peak_rss_mb"`       // NameServer VmHWM after the sweep
	LeanRegisteredS        float64 `json:"lean_registered_s"` // the same storm into the lean limit
}

// restartWriters is how many connections register at once.
const restartWriters = 16

// runRestart runs the storm against a fresh NameServer, then against the
// lean limit (answering with the route body the NameServer returned).
func (e *env) runRestart() (*restartResult, error) {
	row := restartTopology(e.o.bigScale())
	res := &restartResult{Topics: row.Topics, Brokers: row.Brokers, Width: row.Width, Writers: restartWriters}
	e.log.Info("restart: encoding bodies", "topics", row.Topics, "brokers", row.Brokers)
	topo := newTopology(row.Topics, row.Brokers, row.Width)
	bodies, err := encodeAll(topo)
	if err != nil {
		return nil, err
	}
	ns, err := e.namesrv("restart")
	if err != nil {
		return nil, err
	}
	defer ns.stop()
	hb, err := e.dial(ns.addr)
	if err != nil {
		return nil, err
	}
	defer hb.Close()
	defer keepAlive(hb, topo)()
	st, err := e.storm(ns, topo, bodies)
	defer closeAll(st.brokers)
	if err != nil {
		return nil, err
	}
	res.RegisteredS, res.Lookups, res.Misses = st.registered.Seconds(), st.lookups, st.misses
	if err := e.restartSweep(res, ns, topo); err != nil {
		return nil, err
	}
	return res, e.restartLean(res, ns, topo, bodies)
}

// restartTopology is 1,000 brokers with 1M topics (width 2) with
// BENCH_SCALE=1m, else 1,000 brokers with 100k topics.
func restartTopology(big bool) scaleRow {
	if big {
		return scaleRow{Topics: 1_000_000, Brokers: 1000, Width: 2, Conns: 64}
	}
	return scaleRow{Topics: 100_000, Brokers: 1000, Width: 2, Conns: 64}
}

// restartSweep looks every topic up once after the storm and reads the
// NameServer's peak RSS.
func (e *env) restartSweep(res *restartResult, ns *child, topo *topology) error {
	load, err := openLoad(ns.addr, e.o.conns, topo.topics, e.o.seed)
	if err != nil {
		return err
	}
	defer load.close()
	start := time.Now()
	if err := load.sweep(); err != nil {
		return fmt.Errorf("after the storm: %w", err)
	}
	res.SweepS = time.Since(start).Seconds()
	res.AllAnswerS = res.RegisteredS + res.SweepS
	mem, err := readMem(ns.pid())
	res.PeakRSSMB = kbToMB(mem.HWMKB)
	e.log.Info("restart: every topic answers", "seconds", res.AllAnswerS, "p99_us", res.Lookups.P99US, "peak_rss_mb", res.PeakRSSMB)
	return err
}

// restartLean runs the same storm against the lean limit.
func (e *env) restartLean(res *restartResult, ns *child, topo *topology, bodies [][]byte) error {
	reg, err := e.dial(ns.addr)
	if err != nil {
		return err
	}
	bodyPath, _, err := e.saveRouteBody(reg, topo.topics[0])
	_ = reg.Close()
	if err != nil {
		return err
	}
	lean, err := startLean(e.self, e.dir, bodyPath, e.profilePath("restart-lean"), e.log)
	if err != nil {
		return err
	}
	defer lean.stop()
	st, err := e.storm(lean, topo, bodies)
	closeAll(st.brokers)
	if err != nil {
		return err
	}
	res.LeanRegisteredS = st.registered.Seconds()
	return lean.alive()
}

// encodeAll encodes every broker's body (DataVersion counter 1) before
// the storm, so that encoding does not compete with it.
func encodeAll(topo *topology) ([][]byte, error) {
	out := make([][]byte, len(topo.brokers))
	for i := range topo.brokers {
		t, err := newBodyTemplate(&topo.brokers[i])
		if err != nil {
			return nil, err
		}
		out[i] = t.body(nil, 1)
	}
	return out, nil
}

// stormResult is what one storm measured.
type stormResult struct {
	brokers    []*remoting.Client // the registering connections, open
	registered time.Duration
	lookups    latency
	misses     int64
}

// storm registers every broker over restartWriters connections as fast as
// they go, while -conns connections look up random topics; it ends when
// every registration is acknowledged. The caller closes st.brokers.
func (e *env) storm(srv *child, topo *topology, bodies [][]byte) (stormResult, error) {
	load, err := openLoad(srv.addr, e.o.conns, topo.topics, e.o.seed)
	if err != nil {
		return stormResult{}, err
	}
	defer load.close()
	stop := make(chan struct{})
	probes := startProbes(load, stop)
	start := time.Now()
	st := stormResult{}
	st.brokers, err = e.registerParallel(srv.addr, topo, bodies)
	st.registered = time.Since(start)
	close(stop)
	samples, misses, perr := probes.wait()
	st.lookups, st.misses = summarize(samples, st.registered), misses
	e.log.Info("storm: registered", "server", srv.name, "seconds", st.registered.Seconds(),
		"lookups", len(samples), "misses", misses, "p99_us", st.lookups.P99US)
	return st, errors.Join(err, perr, srv.alive())
}

// registerParallel registers broker i on writer i mod restartWriters.
// The connections are returned open: a broker whose connection closes is
// unregistered.
func (e *env) registerParallel(addr string, topo *topology, bodies [][]byte) ([]*remoting.Client, error) {
	errs := make([]error, restartWriters)
	var wg sync.WaitGroup
	var cs []*remoting.Client
	for w := range restartWriters {
		c, err := e.dial(addr)
		if err != nil {
			return cs, err
		}
		cs = append(cs, c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(topo.brokers) && errs[w] == nil; i += restartWriters {
				errs[w] = register(c, &topo.brokers[i], bodies[i])
			}
		}()
	}
	wg.Wait()
	return cs, errors.Join(errs...)
}

// closeAll closes the clients.
func closeAll(cs []*remoting.Client) {
	for _, c := range cs {
		_ = c.Close()
	}
}

// probeSet is the storm's lookup connections.
type probeSet struct {
	wg      sync.WaitGroup
	samples [][]int64
	errs    []error
	misses  atomic.Int64
}

// startProbes runs every connection of load until stop: lookups of random
// topics, a TOPIC_NOT_EXIST answer counted as a miss and retried.
func startProbes(load *lookupLoad, stop <-chan struct{}) *probeSet {
	p := &probeSet{samples: make([][]int64, len(load.conns)), errs: make([]error, len(load.conns))}
	for i, c := range load.conns {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.samples[i], p.errs[i] = c.probeLoop(load.topics, stop, &p.misses)
		}()
	}
	return p
}

func (p *probeSet) wait() ([]int64, int64, error) {
	p.wg.Wait()
	var all []int64
	for _, s := range p.samples {
		all = append(all, s...)
	}
	return all, p.misses.Load(), errors.Join(p.errs...)
}

// probeLoop looks up random topics until stop, keeping every latency.
func (c *lookupConn) probeLoop(topics []string, stop <-chan struct{}, misses *atomic.Int64) ([]int64, error) {
	var lat []int64
	for {
		select {
		case <-stop:
			return lat, nil
		default:
		}
		topic := topics[c.rng.IntN(len(topics))]
		t0 := time.Now()
		found, err := c.probe(topic)
		if err != nil {
			return lat, fmt.Errorf("lookup %s: %w", topic, err)
		}
		lat = append(lat, int64(time.Since(t0)))
		if !found {
			misses.Add(1)
		}
	}
}

// topicNotExistPrefix starts the header of a TOPIC_NOT_EXIST answer.
var topicNotExistPrefix = []byte(fmt.Sprintf(`{"code":%d,`, remoting.TopicNotExist))

// probe is roundTrip that reports TOPIC_NOT_EXIST as not found.
func (c *lookupConn) probe(topic string) (bool, error) {
	frame, err := c.exchange(topic)
	if err != nil {
		return false, err
	}
	if len(frame) >= 4 {
		hl := int(binary.BigEndian.Uint32(frame) & 0xFFFFFF)
		if hl <= len(frame)-4 && bytes.HasPrefix(frame[4:4+hl], topicNotExistPrefix) {
			return false, nil
		}
	}
	return true, checkResponse(frame, c.opaque)
}
