package main

import (
	"bufio"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// latency summarizes one measured phase: every completed request's latency
// is kept and sorted (no histogram buckets, no sampling).
type latency struct {
	Count  int     `json:"count"`
	WallS  float64 `json:"wall_s"`
	QPS    float64 `json:"qps"`
	MeanUS float64 `json:"mean_us"`
	P50US  float64 `json:"p50_us"`
	P90US  float64 `json:"p90_us"`
	P99US  float64 `json:"p99_us"`
	P999US float64 `json:"p999_us"`
	MaxUS  float64 `json:"max_us"`
}

// summarize sorts samples (nanoseconds) and computes the figures (QPS only
// when wall > 0); the percentile rank is ceil(n·p) − 1, as the Rust port's harness does.
func summarize(samples []int64, wall time.Duration) latency {
	l := latency{Count: len(samples), WallS: wall.Seconds()}
	if len(samples) == 0 {
		return l
	}
	slices.Sort(samples)
	var sum float64
	for _, s := range samples {
		sum += float64(s)
	}
	if wall > 0 {
		l.QPS = float64(len(samples)) / wall.Seconds()
	}
	l.MeanUS = sum / float64(len(samples)) / 1e3
	l.P50US = pct(samples, 0.50)
	l.P90US = pct(samples, 0.90)
	l.P99US = pct(samples, 0.99)
	l.P999US = pct(samples, 0.999)
	l.MaxUS = float64(samples[len(samples)-1]) / 1e3
	return l
}

// pct is the p-quantile of sorted samples in microseconds.
func pct(sorted []int64, p float64) float64 {
	rank := int(float64(len(sorted))*p+0.999999999) - 1
	rank = min(max(rank, 0), len(sorted)-1)
	return float64(sorted[rank]) / 1e3
}

// machine describes where the figures were taken.
type machine struct {
	Date      string `json:"date"`
	NumCPU    int    `json:"num_cpu"`
	CPUModel  string `json:"cpu_model"`
	GoVersion string `json:"go_version"`
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	LoadAvg   string `json:"loadavg_at_start"`
}

// describeMachine reads the CPU model and load average from /proc.
func describeMachine() machine {
	m := machine{
		Date: time.Now().UTC().Format(time.RFC3339), NumCPU: runtime.NumCPU(),
		GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.LoadAvg = strings.TrimSpace(string(b))
	}
	m.CPUModel = cpuModel()
	return m
}

// cpuModel returns the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
