package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Targets of the NameServer (see BENCHMARKS.md).
const (
	targetQPSRatio   = 0.9  // route QPS / transport-limit QPS, small
	targetSmallRSSMB = 40.0 // peak RSS on small, MB
	targetChurnP99   = 1.5  // churn p99 / idle p99
	targetPerTopicB  = 2048 // RSS per topic route, bytes
)

// settings are the options a report was produced with.
type settings struct {
	Workload  string  `json:"workload"`
	DurationS float64 `json:"duration_s"`
	WarmupS   float64 `json:"warmup_s"`
	Conns     int     `json:"conns"`
	Seed      int64   `json:"seed"`
	ChurnPct  int     `json:"churn_pct"`
	ChurnRate float64 `json:"churn_rate,omitempty"` // fixed paced rate, 0 = derived
	ChurnEdit bool    `json:"churn_edit,omitempty"` // re-registrations change every topic
	InProcess bool    `json:"in_process_profiled"`
	// ScaleLoads is -scale-loads (0: 3 loads for the 1M row, 1 for the
	// others); ScaleHeap says the NameServer served /metrics.
	ScaleLoads int  `json:"scale_loads,omitempty"`
	ScaleHeap  bool `json:"scale_heap,omitempty"`
}

func settingsOf(o options) settings {
	return settings{
		Workload: o.workload, DurationS: o.duration.Seconds(), WarmupS: o.warmup.Seconds(),
		Conns: o.conns, Seed: o.seed, ChurnPct: o.churnPct, ChurnRate: o.churnRate, ChurnEdit: o.churnEdit,
		InProcess: o.profileDir != "", ScaleLoads: o.scaleLoads, ScaleHeap: o.scaleHeap,
	}
}

// target is one goal and whether this run met it.
type target struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Goal  string  `json:"goal"`
	Met   bool    `json:"met"`
}

// report is everything one run measured.
type report struct {
	Machine  machine        `json:"machine"`
	Settings settings       `json:"settings"`
	Small    *smallResult   `json:"small,omitempty"`
	Churn    *churnResult   `json:"churn,omitempty"`
	RSS      *rssResult     `json:"rss,omitempty"`
	Scale    []*scaleResult `json:"scale,omitempty"`
	Restart  *restartResult `json:"restart,omitempty"`
	TLS      *tlsResult     `json:"tls,omitempty"`
	Targets  []target       `json:"targets"`
}

// evaluate fills Targets from the workloads that ran.
func (r *report) evaluate() {
	add := func(name string, v float64, goal string, met bool) {
		r.Targets = append(r.Targets, target{name, v, goal, met})
	}
	if s := r.Small; s != nil {
		add("small: route QPS / limit QPS", s.QPSRatio, fmt.Sprintf(">= %.2f", targetQPSRatio), s.QPSRatio >= targetQPSRatio)
		add("small: NameServer peak RSS (MB)", s.Route.PeakRSSMB, fmt.Sprintf("<= %.0f", targetSmallRSSMB), s.Route.PeakRSSMB <= targetSmallRSSMB)
	}
	if c := r.Churn; c != nil {
		add(fmt.Sprintf("churn: p99 at %d%% writes / p99 idle (same rate)", r.Settings.ChurnPct), c.P99Ratio,
			fmt.Sprintf("<= %.1f", targetChurnP99), c.P99Ratio <= targetChurnP99)
	}
	if m := r.RSS; m != nil {
		add("rss: bytes per topic route (after registration)", m.PerTopicB, fmt.Sprintf("<= %d", targetPerTopicB), m.PerTopicB <= targetPerTopicB)
		add("rss: bytes per topic route (after lookups)", m.PerTopicLookupsB, fmt.Sprintf("<= %d", targetPerTopicB), m.PerTopicLookupsB <= targetPerTopicB)
	}
	r.evaluateScale(add)
}

// printTable writes the human-readable report.
func (r *report) printTable(w io.Writer) {
	m := r.Machine
	fmt.Fprintf(w, "loadgen %s  %d CPU (%s)  %s  load %s\n", m.Date, m.NumCPU, m.CPUModel, m.GoVersion, m.LoadAvg)
	fmt.Fprintf(w, "%d connections, closed loop, %.0fs measured after %.0fs warm-up\n\n", r.Settings.Conns, r.Settings.DurationS, r.Settings.WarmupS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if r.Small != nil || r.Churn != nil {
		fmt.Fprintln(tw, "run\tQPS\tmean µs\tp50 µs\tp99 µs\tp99.9 µs\tmax µs\tpeak RSS MB\tCPU s\t")
	}
	if s := r.Small; s != nil {
		printRun(tw, "small/route", s.Route.Latency, s.Route.PeakRSSMB, s.Route.CPUSeconds)
		printRun(tw, "small/limit", s.Limit.Latency, s.Limit.PeakRSSMB, s.Limit.CPUSeconds)
	}
	if c := r.Churn; c != nil {
		printRun(tw, "churn/idle", c.Idle, c.PeakRSSMB, 0)
		printRun(tw, "churn/flat-out", c.Flat.Lookup, c.PeakRSSMB, 0)
		printRun(tw, "churn/idle-paced", c.IdlePaced, c.PeakRSSMB, 0)
		printRun(tw, "churn/churn-paced", c.Churn.Lookup, c.PeakRSSMB, 0)
	}
	_ = tw.Flush()
	r.printDetails(w)
	r.printScale(w)
	r.printTLS(w)
	r.printTargets(w)
}

// printRun writes one latency row; cpu 0 (not measured) prints "-".
func printRun(w io.Writer, name string, l latency, rss, cpu float64) {
	cpuText := "-"
	if cpu > 0 {
		cpuText = fmt.Sprintf("%.2f", cpu)
	}
	fmt.Fprintf(w, "%s\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f\t%.1f\t%s\t\n",
		name, l.QPS, l.MeanUS, l.P50US, l.P99US, l.P999US, l.MaxUS, rss, cpuText)
}

// printDetails writes the figures that do not fit the latency table.
func (r *report) printDetails(w io.Writer) {
	if s := r.Small; s != nil {
		fmt.Fprintf(w, "\nsmall: %d topics, %d brokers, width %d, route body %d B; route/limit QPS %.3f; server CPU per request: route %.1f µs, limit %.1f µs\n",
			s.Topics, s.Brokers, s.Width, s.RouteBodyBytes, s.QPSRatio, s.Route.CPUPerReq, s.Limit.CPUPerReq)
	}
	if c := r.Churn; c != nil {
		fmt.Fprintf(w, "churn: %d topics, %d brokers, width %d; initial registration %.2fs; paced rate %.0f lookups/s%s; p99 churn-paced / idle-paced %.2f\n",
			c.Topics, c.Brokers, c.Width, c.RegisterS, c.Rate, rateNote(r.Settings), c.P99Ratio)
		fmt.Fprintf(w, "  re-registrations change %s\n", changeNote(r.Settings))
		printChurn(w, "flat-out", c.Flat)
		printChurn(w, "paced", c.Churn)
	}
	if m := r.RSS; m != nil {
		fmt.Fprintf(w, "rss: %d topics, %d brokers, width %d; registration %.2fs; RSS %.1f → %.1f MB (%.0f B/topic), after lookup sweep (%.2fs) %.1f MB (%.0f B/topic); peak %.1f MB; settled %v\n",
			m.Topics, m.Brokers, m.Width, m.RegisterS, m.BeforeMB, m.AfterMB, m.PerTopicB, m.SweepS, m.AfterLookupsMB, m.PerTopicLookupsB, m.PeakRSSMB, m.Stable)
	}
}

// rateNote says how the paced rate was chosen.
func rateNote(s settings) string {
	if s.ChurnRate > 0 {
		return " (fixed by -churn-rate)"
	}
	return " (from the writer's flat-out rate)"
}

// changeNote says what a churn re-registration changes.
func changeNote(s settings) string {
	if s.ChurnEdit {
		return "the DataVersion and every topic's write queue count (-churn-edit): every topic is rebuilt"
	}
	return "the DataVersion only: topic content is unchanged"
}

func printChurn(w io.Writer, name string, p churnPhase) {
	fmt.Fprintf(w, "  %-8s %6d re-registrations = %5.2f%% of ops; register p50 %.0f µs p99 %.0f µs\n",
		name, p.Registrations, p.WritePct, p.RegisterLat.P50US, p.RegisterLat.P99US)
}

// printTargets lists every target, MISSED when not met.
func (r *report) printTargets(w io.Writer) {
	if len(r.Targets) == 0 {
		return
	}
	fmt.Fprintln(w, "\ntargets:")
	for _, t := range r.Targets {
		verdict := "met"
		if !t.Met {
			verdict = "MISSED"
		}
		fmt.Fprintf(w, "  %-50s %10.3f  (goal %s)  %s\n", t.Name, t.Value, t.Goal, verdict)
	}
}
