package main

import (
	"fmt"
	"io"
)

// targetReregLoss is the bound on what re-registrations may cost
// the 20k-topic row: route QPS with them / route QPS without, at least
// 1 - targetReregLoss.
const targetReregLoss = 0.05

// routeIdleName names the NameServer measured without re-registrations.
const routeIdleName = "route idle"

// addIdleTarget adds, for a row with re-registrations, a fourth target:
// the same NameServer over its own lookup connections and without the
// re-registering writer, measured in the same alternating slices as the
// others, so that the QPS lost to re-registrations is read off one run.
func (e *env) addIdleTarget(row scaleRow, topo *topology, ns *child, ts []*loadTarget) ([]*loadTarget, error) {
	if row.ReregPct == 0 {
		return ts, nil
	}
	t, err := e.newTargetConns(routeIdleName, ns, topo.topics, row.Conns)
	if err != nil {
		return ts, err
	}
	return append(ts, t), nil
}

// addIdle records the idle target's result and the QPS lost to
// re-registrations.
func (res *scaleResult) addIdle(ts []*loadTarget) {
	if len(ts) < 4 || ts[3].name != routeIdleName {
		return
	}
	idle := ts[3].result()
	res.RouteIdle = &idle
	res.ReregLoss = 1 - res.Route.Latency.QPS/max(idle.Latency.QPS, 1e-9)
}

// evaluateRereg adds the re-registration loss target of each row that has one.
func (r *report) evaluateRereg(add func(string, float64, string, bool)) {
	for _, s := range r.Scale {
		if s.RouteIdle != nil {
			add(fmt.Sprintf("scale %d topics: route QPS lost to re-registrations", s.Topics), s.ReregLoss,
				fmt.Sprintf("<= %.2f", targetReregLoss), s.ReregLoss <= targetReregLoss)
		}
	}
}

// printRereg writes, for rows with re-registrations, the NameServer's QPS
// with and without them.
func (r *report) printRereg(w io.Writer) {
	for _, s := range r.Scale {
		if i := s.RouteIdle; i != nil {
			fmt.Fprintf(w, "scale %d topics, %d %% re-registrations (%d in the measured slices): route QPS %.0f, "+
				"idle %.0f, lost %.1f %%; p99 %.0f µs, idle %.0f µs\n", s.Topics, s.ReregPct, s.Reregs,
				s.Route.Latency.QPS, i.Latency.QPS, 100*s.ReregLoss, s.Route.Latency.P99US, i.Latency.P99US)
		}
	}
}
