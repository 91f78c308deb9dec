package metrics

import (
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Collector is a source of metric families: every type of this package
// that holds series, and any prometheus.Collector.
type Collector = prometheus.Collector

// Registry is the set of collectors one process serves on /metrics: a
// prometheus.Registry of its own (never the global default), so that two
// servers in one test binary never share series.
type Registry struct {
	prom  *prometheus.Registry
	mu    sync.Mutex
	names map[string]bool // of every family registered
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{prom: prometheus.NewRegistry(), names: map[string]bool{}}
}

// NewProcessRegistry returns a registry holding client_golang's Go
// runtime (go_*) and process (process_*) collectors and the binary's
// BuildInfoName.
func NewProcessRegistry() *Registry {
	r := NewRegistry()
	r.Register(newBuildInfo(), collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}

// Register adds collectors. It panics when one is invalid or collides with
// a family already registered: names are fixed in code, so that is a
// programming error.
func (r *Registry) Register(cs ...Collector) {
	r.prom.MustRegister(cs...)
	ch := make(chan *prometheus.Desc)
	go func() {
		for _, c := range cs {
			c.Describe(ch)
		}
		close(ch)
	}()
	r.mu.Lock()
	defer r.mu.Unlock()
	for d := range ch {
		r.names[descName(d)] = true
	}
}

// FamilyNames returns the name of every family registered, sorted, also
// of those with no series yet (a vector no label set was used on, a
// source not installed): what /metrics may serve.
func (r *Registry) FamilyNames() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.names))
	for n := range r.names {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// descName is a Desc's fully-qualified name, from its String form
// (Desc{fqName: "name", ...}), the only way client_golang shows it.
func descName(d *prometheus.Desc) string {
	s := d.String()
	_, rest, _ := strings.Cut(s, `fqName: "`)
	name, _, _ := strings.Cut(rest, `"`)
	return name
}

// Gatherer is the underlying prometheus.Gatherer (for promhttp or tests).
func (r *Registry) Gatherer() prometheus.Gatherer { return r.prom }

// Handler serves the registry in the exposition format the scraper asks
// for (text 0.0.4 by default). A failing collector answers 500 and is
// logged to logger (nil discards).
func (r *Registry) Handler(logger hclog.Logger) http.Handler {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return promhttp.HandlerFor(r.prom, promhttp.HandlerOpts{
		ErrorLog:      logger.StandardLogger(&hclog.StandardLoggerOptions{ForceLevel: hclog.Error}),
		ErrorHandling: promhttp.HTTPErrorOnError,
	})
}
