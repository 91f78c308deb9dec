package main

import (
	"time"
)

// pacedAcc accumulates the slices of one paced series.
type pacedAcc struct {
	samples []int64
	wall    time.Duration
	lookups int64
	regs    int64
}

// add runs one measured slice of lookups at rate and accumulates it,
// counting the gate's lookups and re-registrations of the slice.
func (a *pacedAcc) add(load *lookupLoad, d time.Duration, rate float64) error {
	l0, r0 := load.gate.lookups.Load(), load.gate.regs.Load()
	samples, wall, err := load.run(d, rate, true)
	a.samples, a.wall = append(a.samples, samples...), a.wall+wall
	a.lookups += load.gate.lookups.Load() - l0
	a.regs += load.gate.regs.Load() - r0
	return err
}

// pacedRounds warms up at res.Rate, then alternates an idle slice and a
// churn slice (writer held at -churn-pct of operations) -rounds times.
func (e *env) pacedRounds(res *churnResult, load *lookupLoad, ns *child, w *writer) error {
	if _, _, err := load.run(e.o.warmup, res.Rate, false); err != nil {
		return err
	}
	slice := e.o.duration / time.Duration(e.o.rounds)
	var idle, churn pacedAcc
	w.lat = w.lat[:0]
	for r := 0; r < e.o.rounds; r++ {
		e.markInterval(ns)
		if err := idle.add(load, slice, res.Rate); err != nil {
			return err
		}
		e.markInterval(ns)
		if err := e.churnSlice(&churn, load, w, slice, res.Rate); err != nil {
			return err
		}
	}
	e.markInterval(ns)
	res.IdlePaced = summarize(idle.samples, idle.wall)
	res.Churn = churnPhase{
		Lookup: summarize(churn.samples, churn.wall), Registrations: churn.regs,
		WritePct:    100 * float64(churn.regs) / float64(max(churn.regs+churn.lookups, 1)),
		RegisterLat: summarize(w.lat, 0),
	}
	e.log.Info("measured paced", "rate", int(res.Rate), "idle_p99_us", res.IdlePaced.P99US,
		"churn_p99_us", res.Churn.Lookup.P99US, "write_pct", res.Churn.WritePct)
	return ns.alive()
}

// churnSlice runs the paced writer during one measured slice.
func (e *env) churnSlice(acc *pacedAcc, load *lookupLoad, w *writer, d time.Duration, rate float64) error {
	load.gate.lookups.Store(0)
	load.gate.regs.Store(0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.run(time.Now().Add(d+time.Minute), false)
	}()
	err := acc.add(load, d, rate)
	w.quit <- struct{}{}
	<-done
	return firstErr(err, w.err)
}
