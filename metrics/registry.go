package metrics

import (
	"net/http"

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
	prom *prometheus.Registry
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{prom: prometheus.NewRegistry()} }

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
func (r *Registry) Register(cs ...Collector) { r.prom.MustRegister(cs...) }

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
