package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// tlsResult is the tls workload: the same lookups against a NameServer
// without TLS, with TLS enforced, and permissive serving plaintext.
type tlsResult struct {
	KeyType        string      `json:"key_type"`  // the server certificate's key
	Handshake      string      `json:"handshake"` // what a TLS client negotiated
	Topics         int         `json:"topics"`
	Brokers        int         `json:"brokers"`
	ReconnectEvery int         `json:"reconnect_every"` // lookups per connection in the reconnect phase
	Steady         []tlsRun    `json:"steady"`          // long-lived connections; units are lookups
	Reconnect      []tlsRun    `json:"reconnect"`       // a connection per ReconnectEvery lookups; units are connections
	Ratios         []tlsRatios `json:"ratios"`
}

// tlsRun is one server in one phase.
type tlsRun struct {
	Server string `json:"server"`
	serverRun
	RoundRates []float64 `json:"round_rates"` // lookups (steady) or connections (reconnect) per second, per round
}

// tlsRatios compares one server with plain in one phase: the rate ratio
// of each round (the spread shows the machine's noise) and the ratios of
// the pooled figures.
type tlsRatios struct {
	Name       string    `json:"name"`
	RoundRates []float64 `json:"round_rate_ratios"`
	MedianRate float64   `json:"median_rate_ratio"`
	P50        float64   `json:"p50_ratio"`
	P99        float64   `json:"p99_ratio"`
	CPUPerUnit float64   `json:"server_cpu_per_unit_ratio"`
	PeakRSS    float64   `json:"peak_rss_ratio"`
}

// results summarizes the targets of one phase.
func results(ts []*tlsTarget) []tlsRun {
	out := make([]tlsRun, len(ts))
	for i, t := range ts {
		lt := loadTarget{samples: t.samples, wall: t.wall, cpu: t.cpu, mem: t.mem}
		out[i] = tlsRun{Server: t.name, serverRun: lt.result(), RoundRates: t.rounds}
	}
	return out
}

// ratios compares tls and permissive with plain in both phases (the first
// run of each phase is plain).
func (r *tlsResult) ratios() {
	for _, ph := range []struct {
		name string
		runs []tlsRun
	}{{"steady", r.Steady}, {"reconnect", r.Reconnect}} {
		for _, run := range ph.runs[1:] {
			r.Ratios = append(r.Ratios, compare(ph.name+": "+run.Server+"/plain", run, ph.runs[0]))
		}
	}
}

// compare is a / b.
func compare(name string, a, b tlsRun) tlsRatios {
	q := tlsRatios{Name: name}
	for i := range min(len(a.RoundRates), len(b.RoundRates)) {
		q.RoundRates = append(q.RoundRates, div(a.RoundRates[i], b.RoundRates[i]))
	}
	q.MedianRate = median(q.RoundRates)
	q.P50 = div(a.Latency.P50US, b.Latency.P50US)
	q.P99 = div(a.Latency.P99US, b.Latency.P99US)
	q.CPUPerUnit = div(a.CPUPerReq, b.CPUPerReq)
	q.PeakRSS = div(a.PeakRSSMB, b.PeakRSSMB)
	return q
}

// div is a / b, 0 when b is 0.
func div(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// median of v (0 when empty).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// printTLS writes the tls workload's tables.
func (r *report) printTLS(w io.Writer) {
	t := r.TLS
	if t == nil {
		return
	}
	fmt.Fprintf(w, "\ntls: %d topics, %d brokers; server key %s; negotiated %s\n", t.Topics, t.Brokers, t.KeyType, t.Handshake)
	fmt.Fprintf(w, "  steady: %d long-lived connections; reconnect: %d workers, each connection does %d lookup(s) then closes\n",
		r.Settings.Conns, r.Settings.Conns, t.ReconnectEvery)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase/server\trate/s\trounds min–max\tp50 µs\tp99 µs\tserver CPU µs/unit\tpeak RSS MB\t")
	printTLSRuns(tw, "steady", "lookups", t.Steady)
	printTLSRuns(tw, "reconnect", "conns", t.Reconnect)
	_ = tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ratio\trate (median)\trate per round\tp50\tp99\tCPU/unit\tpeak RSS\t")
	for _, q := range t.Ratios {
		fmt.Fprintf(tw, "%s\t%.3f\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t\n", q.Name, q.MedianRate, fmtRatios(q.RoundRates), q.P50, q.P99, q.CPUPerUnit, q.PeakRSS)
	}
	_ = tw.Flush()
}

// printTLSRuns writes one phase's rows; unit names what the rate counts.
func printTLSRuns(w io.Writer, phase, unit string, runs []tlsRun) {
	for _, run := range runs {
		lo, hi := slices.Min(run.RoundRates), slices.Max(run.RoundRates)
		fmt.Fprintf(w, "%s/%s\t%.0f %s\t%.0f–%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", phase, run.Server,
			run.Latency.QPS, unit, lo, hi, run.Latency.P50US, run.Latency.P99US, run.CPUPerReq, run.PeakRSSMB)
	}
}

// fmtRatios prints per-round ratios compactly.
func fmtRatios(v []float64) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%.2f", x)
	}
	return s
}
