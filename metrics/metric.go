package metrics

import (
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Counter is a monotonically increasing integer count.
type Counter struct{ v atomic.Uint64 }

// Inc adds one.
func (c *Counter) Inc() { c.v.Add(1) }

// Add adds n.
func (c *Counter) Add(n uint64) { c.v.Add(n) }

// Value returns the count.
func (c *Counter) Value() uint64 { return c.v.Load() }

// Gauge is a value that goes up and down.
type Gauge struct{ bits atomic.Uint64 }

// Set stores v.
func (g *Gauge) Set(v float64) { g.bits.Store(math.Float64bits(v)) }

// Add adds d (which may be negative).
func (g *Gauge) Add(d float64) {
	for {
		old := g.bits.Load()
		if g.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

// Value returns the current value.
func (g *Gauge) Value() float64 { return math.Float64frombits(g.bits.Load()) }

// vec is a family of series of one metric type keyed by label values.
// Callers keep label values bounded.
type vec[T any] struct {
	name, help string
	labels     []string
	newT       func() *T
	mu         sync.RWMutex
	series     map[string]*series[T]
}

type series[T any] struct {
	values []string
	m      *T
}

func newVec[T any](name, help string, labels []string, newT func() *T) vec[T] {
	mustValidName(name, labels)
	return vec[T]{name: name, help: help, labels: labels, newT: newT, series: map[string]*series[T]{}}
}

// with returns the series of values, creating it; it panics when the
// number of values differs from the number of labels.
func (v *vec[T]) with(values ...string) *T {
	if len(values) != len(v.labels) {
		panic("metrics: " + v.name + " wants " + strings.Join(v.labels, ","))
	}
	key := strings.Join(values, "\xff")
	v.mu.RLock()
	s, ok := v.series[key]
	v.mu.RUnlock()
	if ok {
		return s.m
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok = v.series[key]; !ok {
		s = &series[T]{values: slices.Clone(values), m: v.newT()}
		v.series[key] = s
	}
	return s.m
}

// each calls fn with the label pairs of every series, in label-value order.
func (v *vec[T]) each(fn func(pairs []string, m *T)) {
	v.mu.RLock()
	all := make([]*series[T], 0, len(v.series))
	for _, s := range v.series {
		all = append(all, s)
	}
	v.mu.RUnlock()
	slices.SortFunc(all, func(a, b *series[T]) int { return slices.Compare(a.values, b.values) })
	pairs := make([]string, 2*len(v.labels))
	for _, s := range all {
		for i, l := range v.labels {
			pairs[2*i], pairs[2*i+1] = l, s.values[i]
		}
		fn(pairs, s.m)
	}
}

// CounterVec is a counter family partitioned by labels.
type CounterVec struct{ vec[Counter] }

// NewCounterVec returns a counter family; name should end in _total.
func NewCounterVec(name, help string, labels ...string) *CounterVec {
	return &CounterVec{newVec(name, help, labels, func() *Counter { return new(Counter) })}
}

// With returns the counter of the label values (in label order).
func (v *CounterVec) With(values ...string) *Counter { return v.with(values...) }

// Collect implements Collector.
func (v *CounterVec) Collect(w *Writer) {
	f := w.family(v.name, v.help, TypeCounter)
	v.each(func(pairs []string, c *Counter) { f.sample(v.name, pairs, "", "", float64(c.Value())) })
}

// GaugeVec is a gauge family partitioned by labels.
type GaugeVec struct{ vec[Gauge] }

// NewGaugeVec returns a gauge family.
func NewGaugeVec(name, help string, labels ...string) *GaugeVec {
	return &GaugeVec{newVec(name, help, labels, func() *Gauge { return new(Gauge) })}
}

// With returns the gauge of the label values (in label order).
func (v *GaugeVec) With(values ...string) *Gauge { return v.with(values...) }

// Collect implements Collector.
func (v *GaugeVec) Collect(w *Writer) {
	f := w.family(v.name, v.help, TypeGauge)
	v.each(func(pairs []string, g *Gauge) { f.sample(v.name, pairs, "", "", g.Value()) })
}

// funcMetric is a single unlabelled sample read at scrape time.
type funcMetric struct {
	name, help string
	typ        Type
	fn         func() float64
}

// NewGaugeFunc returns a collector of one gauge whose value fn gives at
// scrape time.
func NewGaugeFunc(name, help string, fn func() float64) Collector {
	mustValidName(name, nil)
	return &funcMetric{name: name, help: help, typ: TypeGauge, fn: fn}
}

// NewCounterFunc is NewGaugeFunc for a counter (fn must not decrease).
func NewCounterFunc(name, help string, fn func() float64) Collector {
	mustValidName(name, nil)
	return &funcMetric{name: name, help: help, typ: TypeCounter, fn: fn}
}

// Collect implements Collector.
func (m *funcMetric) Collect(w *Writer) {
	w.family(m.name, m.help, m.typ).sample(m.name, nil, "", "", m.fn())
}
