package metrics

import (
	"math"
	"slices"
	"sort"
	"sync/atomic"
	"time"
)

// LatencyBuckets are the upper bounds, in seconds, of request latency
// histograms: from 100 µs (a route lookup) to 10 s (a huge registration
// on a loaded host).
var LatencyBuckets = []float64{
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
	0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
}

// Histogram counts observations into fixed buckets. The bucket counts are
// kept per bucket and summed at scrape time, so the +Inf bucket always
// equals the count; the sum may trail by in-flight observations.
type Histogram struct {
	upper   []float64       // sorted upper bounds, without +Inf
	counts  []atomic.Uint64 // len(upper)+1; the last is the +Inf bucket
	sumBits atomic.Uint64
}

func newHistogram(upper []float64) *Histogram {
	return &Histogram{upper: upper, counts: make([]atomic.Uint64, len(upper)+1)}
}

// Observe records v.
func (h *Histogram) Observe(v float64) {
	h.counts[sort.SearchFloat64s(h.upper, v)].Add(1)
	for {
		old := h.sumBits.Load()
		if h.sumBits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// ObserveDuration records d in seconds.
func (h *Histogram) ObserveDuration(d time.Duration) { h.Observe(d.Seconds()) }

// Count returns the number of observations.
func (h *Histogram) Count() uint64 {
	var n uint64
	for i := range h.counts {
		n += h.counts[i].Load()
	}
	return n
}

// write adds the _bucket, _sum and _count samples of h under name.
func (h *Histogram) write(f *family, name string, pairs []string) {
	var cum uint64
	for i := range h.counts {
		cum += h.counts[i].Load()
		le := math.Inf(1)
		if i < len(h.upper) {
			le = h.upper[i]
		}
		f.sample(name+"_bucket", pairs, "le", formatFloat(le), float64(cum))
	}
	f.sample(name+"_sum", pairs, "", "", math.Float64frombits(h.sumBits.Load()))
	f.sample(name+"_count", pairs, "", "", float64(cum))
}

// HistogramVec is a histogram family partitioned by labels.
type HistogramVec struct{ vec[Histogram] }

// NewHistogramVec returns a histogram family with the given bucket upper
// bounds (sorted, without +Inf).
func NewHistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	if !slices.IsSorted(buckets) || len(buckets) == 0 {
		panic("metrics: buckets of " + name + " must be sorted and not empty")
	}
	upper := slices.Clone(buckets)
	return &HistogramVec{newVec(name, help, labels, func() *Histogram { return newHistogram(upper) })}
}

// With returns the histogram of the label values (in label order).
func (v *HistogramVec) With(values ...string) *Histogram { return v.with(values...) }

// Collect implements Collector.
func (v *HistogramVec) Collect(w *Writer) {
	f := w.family(v.name, v.help, TypeHistogram)
	v.each(func(pairs []string, h *Histogram) { h.write(f, v.name, pairs) })
}
