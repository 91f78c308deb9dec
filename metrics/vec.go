package metrics

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// LatencyBuckets are the upper bounds, in seconds, of request latency
// histograms: from 100 µs (a route lookup) to 10 s (a huge registration
// on a loaded host).
var LatencyBuckets = []float64{
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
	0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
}

var (
	metricNameRE = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelNameRE  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// mustValidName panics on a metric or label name outside the classic
// Prometheus character set (so no scraper needs escaping), a reserved
// label name or le: names are fixed in code, so a bad one is a
// programming error, reported when the family is built.
func mustValidName(name string, labels []string) {
	if !metricNameRE.MatchString(name) {
		panic("metrics: invalid metric name " + strconv.Quote(name))
	}
	for _, l := range labels {
		if !labelNameRE.MatchString(l) || strings.HasPrefix(l, "__") || l == "le" {
			panic("metrics: invalid label name " + strconv.Quote(l) + " of " + name)
		}
	}
}

// CounterVec is a counter family partitioned by labels. Callers keep
// label values bounded.
type CounterVec struct{ *prometheus.CounterVec }

// NewCounterVec returns a counter family; name should end in _total.
func NewCounterVec(name, help string, labels ...string) *CounterVec {
	mustValidName(name, labels)
	return &CounterVec{prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)}
}

// With returns the counter of the label values, in label order; it panics
// when their number differs from the number of labels.
func (v *CounterVec) With(values ...string) prometheus.Counter { return v.WithLabelValues(values...) }

// GaugeVec is a gauge family partitioned by labels.
type GaugeVec struct{ *prometheus.GaugeVec }

// NewGaugeVec returns a gauge family.
func NewGaugeVec(name, help string, labels ...string) *GaugeVec {
	mustValidName(name, labels)
	return &GaugeVec{prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)}
}

// With returns the gauge of the label values, in label order.
func (v *GaugeVec) With(values ...string) prometheus.Gauge { return v.WithLabelValues(values...) }

// HistogramVec is a histogram family partitioned by labels.
type HistogramVec struct{ *prometheus.HistogramVec }

// NewHistogramVec returns a histogram family with the given bucket upper
// bounds (sorted, without +Inf).
func NewHistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	mustValidName(name, labels)
	if len(buckets) == 0 || !slices.IsSorted(buckets) {
		panic("metrics: buckets of " + name + " must be sorted and not empty")
	}
	opts := prometheus.HistogramOpts{Name: name, Help: help, Buckets: slices.Clone(buckets)}
	return &HistogramVec{prometheus.NewHistogramVec(opts, labels)}
}

// With returns the histogram of the label values, in label order.
func (v *HistogramVec) With(values ...string) prometheus.Observer {
	return v.WithLabelValues(values...)
}

// observeDuration records d, in seconds, in o.
func observeDuration(o prometheus.Observer, d time.Duration) { o.Observe(d.Seconds()) }

// NewGaugeFunc returns a collector of one gauge whose value fn gives at
// scrape time.
func NewGaugeFunc(name, help string, fn func() float64) Collector {
	mustValidName(name, nil)
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, fn)
}

// NewCounterFunc is NewGaugeFunc for a counter (fn must not decrease).
func NewCounterFunc(name, help string, fn func() float64) Collector {
	mustValidName(name, nil)
	return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, fn)
}

// newDesc is prometheus.NewDesc after mustValidName.
func newDesc(name, help string, labels ...string) *prometheus.Desc {
	mustValidName(name, labels)
	return prometheus.NewDesc(name, help, labels, nil)
}

// gaugeValue is one sample of a described gauge family; label values are
// made valid UTF-8, as the exposition requires, whatever peers sent.
func gaugeValue(d *prometheus.Desc, v float64, labelValues ...string) prometheus.Metric {
	for i, s := range labelValues {
		labelValues[i] = strings.ToValidUTF8(s, "\uFFFD")
	}
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labelValues...)
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
