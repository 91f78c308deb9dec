package main

import (
	"syscall"
	"time"

	"github.com/rmqgo/nameserver/remoting"
)

// Topology of the churn workload: 40 brokers × 2,000 topics, 4 per topic.
const (
	churnTopics  = 20_000
	churnBrokers = 40
	churnWidth   = 4
)

// churnPhase is lookups measured while a writer re-registers brokers.
type churnPhase struct {
	Lookup        latency `json:"lookup"`
	Registrations int64   `json:"registrations"` // in the measured window
	WritePct      float64 `json:"write_pct"`     // registrations / all operations, measured window
	RegisterLat   latency `json:"register"`      // the writer's round trips, warm-up included
}

// churnResult compares lookup latency idle and under re-registration.
//
// One writer connection cannot re-register 2,000-topic brokers fast enough
// to be 5% of closed-loop operations on two cores, so the target is taken
// at a paced lookup rate the writer can match: Rate = writer's flat-out
// rate × (100 − pct) / pct, capped at 80% of the idle closed-loop QPS, or
// the -churn-rate given (to compare builds at one rate). IdlePaced and Churn are measured in -rounds alternating slices, so that
// background load on a shared machine falls on both alike.
type churnResult struct {
	Topics, Brokers, Width int
	RegisterS              float64    `json:"register_s"`  // initial registration, sequential
	Idle                   latency    `json:"idle_closed"` // closed loop, no writes
	Flat                   churnPhase `json:"flat_out"`    // closed loop, writer unthrottled
	Rate                   float64    `json:"paced_rate"`  // lookups/s of the paced phases
	IdlePaced              latency    `json:"idle_paced"`  // paced, no writes
	Churn                  churnPhase `json:"churn_paced"` // paced, writes held at pct%
	P99Ratio               float64    `json:"p99_ratio"`   // churn p99 / idle-paced p99
	PeakRSSMB              float64    `json:"peak_rss_mb"`
}

// runChurn registers 20,000 topics and measures lookups idle and while a
// separate connection re-registers brokers with a new DataVersion each
// time; with -churn-edit every topic's queue count changes too, so every
// topic of the broker is rebuilt.
func (e *env) runChurn() (*churnResult, error) {
	e.log.Info("churn: starting", "topics", churnTopics, "brokers", e.o.churnBrk)
	ns, err := e.namesrv("churn")
	if err != nil {
		return nil, err
	}
	defer ns.stop()
	topo := newTopology(churnTopics, e.o.churnBrk, churnWidth)
	reg, err := e.dial(ns.addr)
	if err != nil {
		return nil, err
	}
	defer reg.Close()
	res := &churnResult{Topics: churnTopics, Brokers: e.o.churnBrk, Width: churnWidth}
	spent, err := registerAll(reg, topo)
	if err != nil {
		return nil, err
	}
	res.RegisterS = spent.Seconds()
	return res, e.measureChurn(res, ns, topo)
}

// measureChurn runs the four phases on one set of lookup connections.
func (e *env) measureChurn(res *churnResult, ns *child, topo *topology) error {
	load, err := openLoad(ns.addr, e.o.conns, topo.topics, e.o.seed)
	if err != nil {
		return err
	}
	defer load.close()
	load.gate.pct = int64(e.o.churnPct)
	w, err := e.newWriter(ns.addr, topo, &load.gate)
	if err != nil {
		return err
	}
	defer w.c.Close()
	if err := e.churnPhases(res, load, ns, w); err != nil {
		return err
	}
	res.P99Ratio = res.Churn.Lookup.P99US / max(res.IdlePaced.P99US, 1e-9)
	mem, err := readMem(ns.pid())
	res.PeakRSSMB = kbToMB(mem.HWMKB)
	return firstErr(err, ns.alive())
}

// churnPhases runs idle and flat-out closed loop, then idle and churn
// alternating at the paced rate.
func (e *env) churnPhases(res *churnResult, load *lookupLoad, ns *child, w *writer) error {
	var err error
	if res.Idle, _, _, err = e.phase(load, ns, 0); err != nil {
		return err
	}
	if res.Flat, err = e.churnPhase(load, ns, w, 0, true); err != nil {
		return err
	}
	pct := float64(e.o.churnPct)
	writeRate := float64(res.Flat.Registrations) / max(res.Flat.Lookup.WallS, 1e-9)
	res.Rate = min(writeRate*(100-pct)/pct, 0.8*res.Idle.QPS)
	if e.o.churnRate > 0 {
		res.Rate = e.o.churnRate
	}
	return e.pacedRounds(res, load, ns, w)
}

// churnPhase runs the writer (flat out, or paced by the gate) during one
// phase of lookups at rate (0 = closed loop).
func (e *env) churnPhase(load *lookupLoad, ns *child, w *writer, rate float64, flat bool) (churnPhase, error) {
	var p churnPhase
	done := make(chan struct{})
	w.lat = w.lat[:0]
	load.gate.lookups.Store(0)
	load.gate.regs.Store(0)
	go func() {
		defer close(done)
		w.run(time.Now().Add(e.o.warmup+e.o.duration+time.Minute), flat)
	}()
	l, lookups, regs, err := e.phase(load, ns, rate)
	w.quit <- struct{}{}
	<-done
	p.Lookup, p.Registrations, p.RegisterLat = l, regs, summarize(w.lat, 0)
	p.WritePct = 100 * float64(regs) / float64(max(regs+lookups, 1))
	return p, firstErr(err, w.err)
}

// phase is a warm-up then a measured run at rate (0 = closed loop); it
// also returns the lookups and re-registrations of the measured window.
func (e *env) phase(load *lookupLoad, ns *child, rate float64) (latency, int64, int64, error) {
	if _, _, err := load.run(e.o.warmup, rate, false); err != nil {
		return latency{}, 0, 0, err
	}
	l0, r0 := load.gate.lookups.Load(), load.gate.regs.Load()
	e.markInterval(ns)
	samples, wall, err := load.run(e.o.duration, rate, true)
	e.markInterval(ns)
	if err != nil {
		return latency{}, 0, 0, err
	}
	lookups, regs := load.gate.lookups.Load()-l0, load.gate.regs.Load()-r0
	l := summarize(samples, wall)
	e.log.Info("measured", "rate", int(rate), "qps", int(l.QPS), "p99_us", l.P99US, "registrations", regs)
	return l, lookups, regs, ns.alive()
}

// markInterval asks an in-process NameServer (-profile-dir) to log its
// scheduler latency since the last mark.
func (e *env) markInterval(ns *child) {
	if e.o.profileDir != "" {
		_ = ns.cmd.Process.Signal(syscall.SIGUSR2)
	}
}

// writer re-registers brokers round-robin with a growing DataVersion
// counter, on its own connection. With -churn-edit it alternates each
// broker between two topic contents (write queue counts 4 and 5).
type writer struct {
	c       *remoting.Client
	topo    *topology
	tmpls   [2][]*bodyTemplate // by content variant, then broker
	flip    []int              // each broker's current variant
	gate    *mixGate
	counter int64 // last DataVersion counter sent; 1 = initial registration
	lat     []int64
	err     error
	quit    chan struct{}
}

// newWriter dials the writer's own connection and makes every body
// template.
func (e *env) newWriter(addr string, topo *topology, gate *mixGate) (*writer, error) {
	w := &writer{topo: topo, gate: gate, counter: 1, quit: make(chan struct{})}
	variants := 1
	if e.o.churnEdit {
		variants = 2
	}
	for v := range variants {
		for i := range topo.brokers {
			t, err := newBodyTemplateQueues(&topo.brokers[i], int32(writeQueues+v))
			if err != nil {
				return nil, err
			}
			w.tmpls[v] = append(w.tmpls[v], t)
		}
	}
	if variants == 1 {
		w.tmpls[1] = w.tmpls[0]
	}
	w.flip = make([]int, len(topo.brokers))
	var err error
	w.c, err = e.dial(addr)
	return w, err
}

// run registers until a value on quit or deadline, paced by the gate
// unless flat; the first error ends it (and is kept in w.err). It always
// waits for quit before returning.
func (w *writer) run(deadline time.Time, flat bool) {
	var buf []byte
	for w.err == nil && time.Now().Before(deadline) {
		select {
		case <-w.quit:
			return
		default:
		}
		if !flat && !w.gate.writeMayGo() {
			time.Sleep(gatePause)
			continue
		}
		w.counter++
		n := len(w.tmpls[0])
		i, round := int(w.counter)%n, int(w.counter)/n
		buf = w.tmpls[(round+1)%2][i].body(buf, w.counter) // round 0 was the initial registration

		start := time.Now()
		w.err = register(w.c, &w.topo.brokers[i], buf)
		w.lat = append(w.lat, int64(time.Since(start)))
		w.gate.regs.Add(1)
	}
	<-w.quit
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
