package main

import (
	"fmt"
	"sync"
	"time"
)

// tlsTarget is one server under one phase of the tls workload: slice runs
// the load for d and returns one latency per unit (a lookup, or a whole
// connection in the reconnect phase).
type tlsTarget struct {
	name    string
	srv     *child
	slice   func(d time.Duration) ([]int64, time.Duration, error)
	close   func()
	samples []int64
	wall    time.Duration
	cpu     float64
	rounds  []float64 // units per second, one per round
	mem     memStatus
}

// steadyTargets opens -conns long-lived connections to every server (TLS
// ones handshake here, outside the measurement) and warms them up.
func (e *env) steadyTargets(servers []*tlsServer, topo *topology) ([]*tlsTarget, error) {
	var ts []*tlsTarget
	for _, s := range servers {
		load, err := openLoadWith(s.dial, s.srv.addr, e.o.conns, topo.topics, e.o.seed)
		if err == nil {
			_, _, err = load.run(e.o.warmup, 0, false)
		}
		if err != nil {
			for _, t := range ts {
				t.close()
			}
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		ts = append(ts, &tlsTarget{name: s.name, srv: s.srv, close: load.close,
			slice: func(d time.Duration) ([]int64, time.Duration, error) { return load.run(d, 0, true) }})
	}
	return ts, nil
}

// reconnectTargets drive every server with -conns workers that each open a
// connection, do -tls-reconnect-every lookups on it and close it.
func (e *env) reconnectTargets(servers []*tlsServer, topo *topology) []*tlsTarget {
	var ts []*tlsTarget
	for _, s := range servers {
		r := &reconnector{dial: s.dial, addr: s.srv.addr, topics: topo.topics, every: e.o.tlsEvery, workers: e.o.conns, seed: e.o.seed}
		ts = append(ts, &tlsTarget{name: s.name, srv: s.srv, slice: r.run, close: func() {}})
	}
	return ts
}

// rotate runs -rounds rounds of one -duration/-rounds slice per target,
// starting each round one target later, so that drifting background load
// on a shared machine falls on every target alike.
func (e *env) rotate(ts []*tlsTarget) error {
	if err := e.warmReconnect(ts); err != nil {
		return err
	}
	slice := e.o.duration / time.Duration(e.o.rounds)
	for r := 0; r < e.o.rounds; r++ {
		for i := range ts {
			if err := ts[(r+i)%len(ts)].measure(slice); err != nil {
				return err
			}
		}
	}
	for _, t := range ts {
		l := summarize(t.samples, t.wall)
		e.log.Info("measured", "server", t.name, "per_s", int(l.QPS), "p99_us", l.P99US, "rounds", fmt.Sprint(roundInts(t.rounds)))
	}
	return nil
}

// warmReconnect runs each target for a tenth of -warmup (connection
// phases have no long-lived connections to warm up).
func (e *env) warmReconnect(ts []*tlsTarget) error {
	for _, t := range ts {
		if _, _, err := t.slice(e.o.warmup / 10); err != nil {
			return fmt.Errorf("%s warm-up: %w", t.name, err)
		}
	}
	return nil
}

// measure runs one slice and adds its samples, wall time, rate and server
// CPU; it reads the server's memory afterwards.
func (t *tlsTarget) measure(d time.Duration) error {
	cpu0 := cpuSeconds(t.srv.pid())
	samples, wall, err := t.slice(d)
	if err != nil {
		return fmt.Errorf("%s: %w", t.name, err)
	}
	t.cpu += cpuSeconds(t.srv.pid()) - cpu0
	t.samples, t.wall = append(t.samples, samples...), t.wall+wall
	t.rounds = append(t.rounds, float64(len(samples))/wall.Seconds())
	t.mem, err = readMem(t.srv.pid())
	return err
}

// roundInts rounds rates for the log.
func roundInts(v []float64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// reconnector is the reconnect phase's load on one server.
type reconnector struct {
	dial    dialFunc
	addr    string
	topics  []string
	every   int // lookups per connection
	workers int
	seed    int64
	opened  uint64 // connections opened so far (seeds their topic choice)
}

// run drives the workers for d and returns the latency of every
// connection: dial, handshake and its lookups (close excluded).
func (r *reconnector) run(d time.Duration) ([]int64, time.Duration, error) {
	var wg sync.WaitGroup
	lats := make([][]int64, r.workers)
	errs := make([]error, r.workers)
	start := time.Now()
	deadline := start.Add(d)
	for i := range r.workers {
		base := uint64(r.seed) + r.opened + uint64(i)<<32
		wg.Add(1)
		go func() {
			defer wg.Done()
			lats[i], errs[i] = r.worker(base, deadline)
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	var all []int64
	for i := range lats {
		if errs[i] != nil {
			return nil, 0, errs[i]
		}
		all = append(all, lats[i]...)
	}
	r.opened += uint64(len(all))
	return all, wall, nil
}

// worker opens connections one after the other until deadline.
func (r *reconnector) worker(seed uint64, deadline time.Time) ([]int64, error) {
	var lat []int64
	for n := uint64(0); time.Now().Before(deadline) && len(lat) < maxSamples/r.workers; n++ {
		t0 := time.Now()
		c, err := dialLookupWith(r.dial, r.addr, seed+n)
		if err != nil {
			return nil, fmt.Errorf("connection %d: %w", n, err)
		}
		for k := 0; k < r.every && err == nil; k++ {
			err = c.roundTrip(r.topics[c.rng.IntN(len(r.topics))])
		}
		lat = append(lat, int64(time.Since(t0)))
		_ = c.nc.Close()
		if err != nil {
			return nil, fmt.Errorf("connection %d: %w", n, err)
		}
	}
	return lat, nil
}
