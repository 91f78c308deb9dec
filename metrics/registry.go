package metrics

import (
	"bytes"
	"io"
	"sync"
)

// Collector adds its families to a scrape. Collect may run concurrently
// with itself and with the updates of the metrics it reads.
type Collector interface {
	Collect(w *Writer)
}

// CollectorFunc adapts a function to Collector (for families whose series
// are only known at scrape time).
type CollectorFunc func(w *Writer)

// Collect implements Collector.
func (f CollectorFunc) Collect(w *Writer) { f(w) }

// Registry is a set of collectors rendered together in the Prometheus text
// exposition format (version 0.0.4). Each server owns its registry; there
// is no global one.
type Registry struct {
	mu         sync.RWMutex
	collectors []Collector
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{} }

// NewProcessRegistry returns a registry holding the Go runtime (go_*) and
// process (process_*) collectors.
func NewProcessRegistry() *Registry {
	r := NewRegistry()
	r.Register(CollectorFunc(collectGo))
	r.Register(CollectorFunc(collectProcess))
	return r
}

// Register adds collectors; it may be called while scrapes run.
func (r *Registry) Register(cs ...Collector) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.collectors = append(r.collectors, cs...)
}

// Gather runs every collector and returns the rendered families.
func (r *Registry) Gather() []byte {
	var b bytes.Buffer
	r.render(&b)
	return b.Bytes()
}

// WriteTo renders the registry to out.
func (r *Registry) WriteTo(out io.Writer) (int64, error) {
	b := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(b)
	b.Reset()
	r.render(b)
	return b.WriteTo(out)
}

func (r *Registry) render(b *bytes.Buffer) {
	r.mu.RLock()
	cs := r.collectors
	r.mu.RUnlock()
	w := newWriter()
	for _, c := range cs {
		c.Collect(w)
	}
	w.writeTo(b)
}
