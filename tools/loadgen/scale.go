package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/rmqgo/nameserver/remoting"
)

// scaleRow is one row of the scale table: a topology, the lookup
// connections, and re-registrations as a percentage of operations (0 =
// none) during the lookups.
type scaleRow struct {
	Topics   int `json:"topics"`
	Brokers  int `json:"brokers"`
	Width    int `json:"width"`
	Conns    int `json:"conns"`
	ReregPct int `json:"rereg_pct"`
}

// scaleRows are the rows of BENCHMARKS.md's scale table; the 1M-topic row only with
// BENCH_SCALE=1m (or -scale-1m), as it takes minutes.
func scaleRows(big bool) []scaleRow {
	rows := []scaleRow{
		{Topics: 100, Brokers: 10, Width: 4, Conns: 16},
		{Topics: 20_000, Brokers: 1000, Width: 1, Conns: 64, ReregPct: 2},
		{Topics: 100_000, Brokers: 1000, Width: 4, Conns: 256},
	}
	if big {
		rows = append(rows, scaleRow{Topics: 1_000_000, Brokers: 1000, Width: 2, Conns: 64})
	}
	return rows
}

// bigScale reports whether the 1M-topic row and restart storm were asked for.
func (o options) bigScale() bool { return o.scale1M || os.Getenv("BENCH_SCALE") == "1m" }

// scaleResult is one row measured against the NameServer, the lean limit
// (reads frames, answers canned bytes, decodes nothing) and the remoting
// limit (the project's remoting server answering a canned body).
type scaleResult struct {
	scaleRow
	RouteBodyBytes int       `json:"route_body_bytes"`
	Route          serverRun `json:"route"`
	Lean           serverRun `json:"lean"`
	Limit          serverRun `json:"limit"`
	LeanRatio      float64   `json:"qps_ratio_lean"`   // route QPS / lean QPS
	LimitRatio     float64   `json:"qps_ratio_limit"`  // route QPS / remoting-limit QPS
	P99Ratio       float64   `json:"p99_ratio_lean"`   // route p99 / lean p99
	Reregs         int64     `json:"reregistrations"`  // route, measured slices
	RegisterS      float64   `json:"register_s"`       // sequential registration of every broker, route, first load
	LeanRegisterS  float64   `json:"lean_register_s"`  // the same bytes into the lean limit
	LimitRegisterS float64   `json:"limit_register_s"` // and into the remoting limit (frames read whole, bodies not decoded)
	RegisterUS     float64   `json:"register_us_per_topic"`
	// Loads are the loads of the topology before the lookups, the first
	// one included; MaxLoadRSSMB is the largest peak RSS after any.
	Loads        []loadRun `json:"loads"`
	MaxLoadRSSMB float64   `json:"max_load_peak_rss_mb"`
	// RouteIdle is the NameServer measured without re-registrations, in
	// the same alternating slices, for rows with re-registrations;
	// ReregLoss is 1 - route QPS / RouteIdle QPS.
	RouteIdle *serverRun `json:"route_idle,omitempty"`
	ReregLoss float64    `json:"rereg_qps_loss,omitempty"`
}

// runScale measures every row.
func (e *env) runScale() ([]*scaleResult, error) {
	var out []*scaleResult
	for _, row := range scaleRows(e.o.bigScale() || e.o.scaleOnly >= 1_000_000) {
		if e.o.scaleOnly != 0 && row.Topics != e.o.scaleOnly {
			continue
		}
		res, err := e.runScaleRow(row)
		if err != nil {
			return out, fmt.Errorf("scale %d topics: %w", row.Topics, err)
		}
		out = append(out, res)
	}
	return out, nil
}

// runScaleRow loads the row's topology into a fresh NameServer (as many
// times as loadsOf says, timing each and reading the RSS after each) and
// once into the lean limit, then runs the lookups against the three
// servers in alternating slices.
func (e *env) runScaleRow(row scaleRow) (*scaleResult, error) {
	e.log.Info("scale: starting", "topics", row.Topics, "brokers", row.Brokers, "width", row.Width,
		"conns", row.Conns, "loads", e.o.loadsOf(row))
	ns, err := e.namesrvWith(fmt.Sprintf("scale-%d", row.Topics), e.o.scaleHeap)
	if err != nil {
		return nil, err
	}
	topo := newTopology(row.Topics, row.Brokers, row.Width)
	reg, err := e.dial(ns.addr)
	if err != nil {
		ns.stop()
		return nil, err
	}
	// The NameServer stops before reg closes: closing reg first would have
	// it unregister every broker, seconds of CPU at 1M topics that a
	// -profile-dir profile would count with the loads.
	defer reg.Close()
	defer ns.stop()
	defer keepAlive(reg, topo)()
	res := &scaleResult{scaleRow: row}
	if res.Loads, err = e.runLoads(ns, reg, topo, e.o.loadsOf(row)); err != nil {
		return nil, err
	}
	res.MaxLoadRSSMB = maxLoadPeak(res.Loads)
	res.RegisterS = res.Loads[0].RegisterS
	res.RegisterUS = res.RegisterS * 1e6 / float64(row.Topics*row.Width)
	e.log.Info("scale: registered", "seconds", res.RegisterS, "us_per_topic", res.RegisterUS)
	return res, e.measureScale(res, ns, reg, topo)
}

// measureScale starts both limits with the real route body, times the
// registration (first load's bodies) into each and runs the lookups.
func (e *env) measureScale(res *scaleResult, ns *child, reg *remoting.Client, topo *topology) error {
	bodyPath, n, err := e.saveRouteBody(reg, topo.topics[0])
	if err != nil {
		return err
	}
	res.RouteBodyBytes = n
	lean, err := startLean(e.self, e.dir, bodyPath, e.profilePath(fmt.Sprintf("scale-%d-lean", res.Topics)), e.log)
	if err != nil {
		return err
	}
	defer lean.stop()
	limit, err := startLimit(e.self, e.dir, bodyPath, e.profilePath(fmt.Sprintf("scale-%d-limit", res.Topics)), e.log)
	if err != nil {
		return err
	}
	defer limit.stop()
	if res.LeanRegisterS, err = e.registerInto(lean, topo); err != nil {
		return err
	}
	if res.LimitRegisterS, err = e.registerInto(limit, topo); err != nil {
		return err
	}
	ts, err := e.scaleTargets(res, topo, ns, lean, limit)
	if err == nil {
		ts, err = e.addIdleTarget(res.scaleRow, topo, ns, ts)
	}
	defer closeTargets(ts)
	if err != nil {
		return err
	}
	if err := e.interleave(ts...); err != nil {
		return err
	}
	res.Route, res.Lean, res.Limit = ts[0].result(), ts[1].result(), ts[2].result()
	res.addIdle(ts)
	res.LeanRatio = res.Route.Latency.QPS / max(res.Lean.Latency.QPS, 1e-9)
	res.LimitRatio = res.Route.Latency.QPS / max(res.Limit.Latency.QPS, 1e-9)
	res.P99Ratio = res.Route.Latency.P99US / max(res.Lean.Latency.P99US, 1e-9)
	if ts[0].rereg != nil {
		res.Reregs = ts[0].rereg.count
	}
	return errors.Join(ns.alive(), lean.alive(), limit.alive())
}

// registerInto registers the topology into srv over a new connection and
// returns the seconds spent in the round trips.
func (e *env) registerInto(srv *child, topo *topology) (float64, error) {
	c, err := e.dial(srv.addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	spent, err := registerAll(c, topo)
	return spent.Seconds(), err
}

// scaleTargets opens the lookup connections (and, with re-registrations,
// a writer sending the last load's bodies) to the NameServer, the lean
// limit and the remoting limit.
func (e *env) scaleTargets(res *scaleResult, topo *topology, srvs ...*child) ([]*loadTarget, error) {
	var ts []*loadTarget
	row, last := res.scaleRow, res.Loads[len(res.Loads)-1]
	for i, name := range []string{"route", "lean", "limit"} {
		t, err := e.newTargetConns(name, srvs[i], topo.topics, row.Conns)
		if err != nil {
			return ts, err
		}
		ts = append(ts, t)
		if row.ReregPct == 0 {
			continue
		}
		t.load.gate.pct = int64(row.ReregPct)
		if t.rereg, err = e.newRereg(srvs[i].addr, topo, &t.load.gate, last); err != nil {
			return ts, err
		}
	}
	return ts, nil
}

func closeTargets(ts []*loadTarget) {
	for _, t := range ts {
		t.load.close()
		if t.rereg != nil {
			_ = t.rereg.c.Close()
		}
	}
}

// reregWriter re-registers brokers round-robin with the body of their
// last load (DataVersion counter 1 when there was one load): what every
// broker sends every 30 s when its topics have not changed. The gate holds
// it at its share of operations.
type reregWriter struct {
	c      *remoting.Client
	topo   *topology
	bodies [][]byte
	gate   *mixGate
	next   int
	count  int64 // registrations in measured slices
}

func (e *env) newRereg(addr string, topo *topology, gate *mixGate, last loadRun) (*reregWriter, error) {
	w := &reregWriter{topo: topo, gate: gate}
	for i := range topo.brokers {
		t, err := newBodyTemplateQueues(&topo.brokers[i], last.WriteQueues)
		if err != nil {
			return nil, err
		}
		w.bodies = append(w.bodies, t.body(nil, last.Counter))
	}
	var err error
	w.c, err = e.dial(addr)
	return w, err
}

// run registers until stop is closed; it returns the first error.
func (w *reregWriter) run(stop <-chan struct{}) error {
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		if !w.gate.writeMayGo() {
			time.Sleep(gatePause)
			continue
		}
		i := w.next % len(w.bodies)
		w.next++
		if err := register(w.c, &w.topo.brokers[i], w.bodies[i]); err != nil {
			return err
		}
		w.gate.regs.Add(1)
		w.count++
	}
}

// during runs the writer, if any, while fn runs.
func (w *reregWriter) during(fn func() error) error {
	if w == nil {
		return fn()
	}
	w.gate.lookups.Store(0)
	w.gate.regs.Store(0)
	stop, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- w.run(stop) }()
	err := fn()
	close(stop)
	return errors.Join(err, <-done)
}
