package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Targets of the scale workload (BENCHMARKS.md, scale table).
const (
	targetLeanRatio    = 0.85 // route QPS / lean-limit QPS, every row
	targetLeanP99      = 1.5  // route p99 / lean-limit p99, every row
	targetRSS1MMB      = 641  // peak RSS at 1M topics over its loads, MB
	targetLoadVsLean   = 2.5  // registration time / lean-limit time, 1M topics
	targetRegisterFlat = 2.0  // µs per topic: largest row / 20k row
)

// evaluateScale adds the scale and restart targets.
func (r *report) evaluateScale(add func(string, float64, string, bool)) {
	for _, s := range r.Scale {
		name := fmt.Sprintf("scale %d topics: ", s.Topics)
		add(name+"route QPS / lean QPS", s.LeanRatio, fmt.Sprintf(">= %.2f", targetLeanRatio), s.LeanRatio >= targetLeanRatio)
		add(name+"route p99 / lean p99", s.P99Ratio, fmt.Sprintf("<= %.1f", targetLeanP99), s.P99Ratio <= targetLeanP99)
		if s.Topics >= 1_000_000 {
			add(fmt.Sprintf("%speak RSS (MB), %d loads", name, len(s.Loads)), s.MaxLoadRSSMB,
				fmt.Sprintf("<= %d", targetRSS1MMB), s.MaxLoadRSSMB <= targetRSS1MMB)
			v := s.RegisterS / max(s.LeanRegisterS, 1e-9)
			add(name+"registration time / lean time", v, fmt.Sprintf("<= %.1f", targetLoadVsLean), v <= targetLoadVsLean)
		}
	}
	r.evaluateRereg(add)
	if n := len(r.Scale); n >= 4 { // 1M vs 100k topics, both on 1,000 brokers
		v := r.Scale[n-1].RegisterUS / max(r.Scale[n-2].RegisterUS, 1e-9)
		add(fmt.Sprintf("scale: registration µs/topic, %d vs %d topics", r.Scale[n-1].Topics, r.Scale[n-2].Topics), v,
			fmt.Sprintf("<= %.1f", targetRegisterFlat), v <= targetRegisterFlat)
	}
}

// printScale writes the scale rows and the restart storm.
func (r *report) printScale(w io.Writer) {
	if len(r.Scale) > 0 {
		fmt.Fprintln(w, "\nscale (route = NameServer, lean = lean limit, limit = remoting limit; QPS, p99 µs, peak RSS MB):")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "topics\tbrokers\twidth\tconns\trereg %\tlean QPS\tlimit QPS\troute QPS\t/lean\t/limit\tlean p99\troute p99\troute RSS\tRSS after loads MB\treg s (per load)\tlean reg s\tlimit reg s\treg µs/topic\t")
		for _, s := range r.Scale {
			fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%.0f\t%.0f\t%.0f\t%.2f\t%.2f\t%.0f\t%.0f\t%.1f\t%s\t%s\t%.2f\t%.2f\t%.2f\t\n",
				s.Topics, s.Brokers, s.Width, s.Conns, s.ReregPct, s.Lean.Latency.QPS, s.Limit.Latency.QPS,
				s.Route.Latency.QPS, s.LeanRatio, s.LimitRatio, s.Lean.Latency.P99US, s.Route.Latency.P99US,
				s.Route.PeakRSSMB, joinLoads(s.Loads, 0, func(l loadRun) float64 { return l.PeakRSSMB }),
				joinLoads(s.Loads, 2, func(l loadRun) float64 { return l.RegisterS }), s.LeanRegisterS, s.LimitRegisterS, s.RegisterUS)
		}
		_ = tw.Flush()
		r.printLoads(w)
		r.printRereg(w)
	}
	if x := r.Restart; x != nil {
		fmt.Fprintf(w, "\nrestart storm: %d topics, %d brokers, width %d, %d registering connections, %d lookup connections\n",
			x.Topics, x.Brokers, x.Width, x.Writers, r.Settings.Conns)
		fmt.Fprintf(w, "  every registration acknowledged %.2fs (lean limit %.2fs, ratio %.2f); sweep %.2fs; every topic answers %.2fs\n",
			x.RegisteredS, x.LeanRegisteredS, x.RegisteredS/max(x.LeanRegisteredS, 1e-9), x.SweepS, x.AllAnswerS)
		fmt.Fprintf(w, "  lookups during the storm: %d (%d TOPIC_NOT_EXIST), p50 %.0f µs, p99 %.0f µs, max %.0f µs; peak RSS %.1f MB\n",
			x.Lookups.Count, x.Misses, x.Lookups.P50US, x.Lookups.P99US, x.Lookups.MaxUS, x.PeakRSSMB)
	}
}
