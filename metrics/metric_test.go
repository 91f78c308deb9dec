package metrics

import (
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/metrics/metricstest"
)

// parse scrapes reg's /metrics handler and parses the text it serves.
func parse(t *testing.T, reg *Registry) metricstest.Families {
	t.Helper()
	fs, _ := metricstest.ScrapeHandler(t, reg.Handler(nil))
	return fs
}

func TestCounterGaugeHistogramText(t *testing.T) {
	reg := NewRegistry()
	c := NewCounterVec("x_total", "Help with \\ and\nnewline.", "a")
	g := NewGaugeVec("y", "A gauge.")
	h := NewHistogramVec("z_seconds", "A histogram.", []float64{0.1, 1}, "k")
	reg.Register(c, g, h)
	c.With(`q"uo\te` + "\n").Add(3)
	c.With("b").Inc()
	g.With().Set(-2.5)
	h.With("v").Observe(0.05)
	h.With("v").Observe(0.5)
	h.With("v").Observe(7)

	fs, text := metricstest.ScrapeHandler(t, reg.Handler(nil))
	require.Contains(t, text, "# HELP x_total Help with \\\\ and\\nnewline.\n# TYPE x_total counter\n")
	require.Contains(t, text, `x_total{a="q\"uo\\te\n"} 3`)
	require.Contains(t, text, `z_seconds_bucket{k="v",le="0.1"} 1`)
	require.Contains(t, text, `z_seconds_bucket{k="v",le="+Inf"} 3`)
	require.Less(t, strings.Index(text, "# TYPE x_total"), strings.Index(text, "# TYPE y"), "families sorted")

	require.Equal(t, 3.0, fs.Sum("x_total", "a", "q\"uo\\te\n"))
	require.Equal(t, -2.5, fs.Sum("y"))
	require.Equal(t, 2.0, fs.Sum("z_seconds_bucket", "le", "1"))
	require.Equal(t, 3.0, fs.Sum("z_seconds_count", "k", "v"))
	require.InDelta(t, 7.55, fs.Sum("z_seconds_sum"), 1e-9)
}

func TestEmptyVecAndFuncs(t *testing.T) {
	reg := NewRegistry()
	reg.Register(NewCounterVec("unused_total", "never touched", "a"),
		NewGaugeFunc("g", "gf", func() float64 { return math.Inf(1) }),
		NewCounterFunc("c_total", "cf", func() float64 { return 4 }))
	fs := parse(t, reg)
	require.NotContains(t, fs, "unused_total", "a family without series is left out")
	require.True(t, math.IsInf(fs.Sum("g"), 1))
	require.Equal(t, "counter", fs["c_total"].Type)
}

// constGauge is an unchecked collector of one gauge sample.
type constGauge struct {
	desc *prometheus.Desc
	v    float64
	lv   string
}

func (constGauge) Describe(chan<- *prometheus.Desc) {}

func (c constGauge) Collect(ch chan<- prometheus.Metric) { ch <- gaugeValue(c.desc, c.v, c.lv) }

func TestCollectorsMergeFamilies(t *testing.T) {
	reg := NewRegistry()
	d := newDesc("m", "h", "a")
	reg.Register(constGauge{d, 1, "1"}, constGauge{d, 2, "2"})
	fs := parse(t, reg)
	require.Len(t, fs["m"].Samples, 2)
}

func TestInvalidNamesPanic(t *testing.T) {
	require.Panics(t, func() { NewCounterVec("bad-name", "") })
	require.Panics(t, func() { NewGaugeVec("ok", "", "le") })
	require.Panics(t, func() { NewGaugeVec("ok", "", "__x") })
	require.Panics(t, func() { NewHistogramVec("h", "", []float64{2, 1}) })
	require.Panics(t, func() { NewCounterVec("ok_total", "", "a").With() })
}

func TestConcurrentUpdatesAndScrapes(t *testing.T) {
	reg := NewRegistry()
	h := NewHistogramVec("lat_seconds", "", LatencyBuckets, "code")
	c := NewCounterVec("n_total", "", "code")
	reg.Register(h, c)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 1000 {
				code := string(rune('a' + (i+j)%4))
				c.With(code).Inc()
				h.With(code).Observe(float64(j) / 1000)
			}
		}()
	}
	for range 20 {
		parse(t, reg)
	}
	wg.Wait()
	fs := parse(t, reg)
	require.Equal(t, 8000.0, fs.Sum("n_total"))
	require.Equal(t, 8000.0, fs.Sum("lat_seconds_count"))
}

func TestProcessRegistry(t *testing.T) {
	fs := parse(t, NewProcessRegistry())
	require.Positive(t, fs.Sum("go_goroutines"))
	require.Positive(t, fs.Sum("go_memstats_heap_alloc_bytes"))
	require.True(t, fs.Has("go_info"))
	if runtime.GOOS == "linux" {
		require.Positive(t, fs.Sum("process_resident_memory_bytes"))
		require.Positive(t, fs.Sum("process_open_fds"))
		require.Positive(t, fs.Sum("process_start_time_seconds"))
	}
}
