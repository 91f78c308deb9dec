package namesrv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/rmqgo/nameserver/kv"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/namesrv/route"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/tlsconf"
)

// Option adjusts a Server built by New.
type Option func(*options)

type options struct {
	metricsListener net.Listener
	tls             *tlsconf.Manager        // nil: plaintext only
	warmupTimeouts  [2]time.Duration        // tests: per peer, per lookup (warmup.go)
	routes          map[string]http.Handler // WithMetricsRoute
}

// WithMetricsListener serves the metrics endpoint on ln (tests on port 0)
// instead of binding metricsPromExporterHost:metricsPromExporterPort. The
// server takes ownership of ln; it is closed unused when
// metricsExporterType is not PROM.
func WithMetricsListener(ln net.Listener) Option {
	return func(o *options) { o.metricsListener = ln }
}

func buildOptions(opts []Option) options {
	var o options
	for _, fn := range opts {
		fn(&o)
	}
	return o
}

func (o options) close() {
	if o.metricsListener != nil {
		_ = o.metricsListener.Close()
	}
}

// serverMetrics is the metrics wiring of a Server: the registry, the
// NameServer families and, once started, the HTTP endpoint. A nil
// *serverMetrics (metricsExporterType is not PROM) records nothing.
type serverMetrics struct {
	reg *metrics.Registry
	ns  *metrics.Namesrv
	ln  net.Listener // from WithMetricsListener, until Start
	ep  *metrics.Endpoint
	// routes are WithMetricsRoute's handlers.
	routes map[string]http.Handler
}

// newMetrics builds the metrics of s when metricsExporterType=PROM. It
// reads s.routes and s.kv, which must be set.
func (s *Server) newMetrics(o options) *serverMetrics {
	if !s.cfg.Load().PromMetricsEnabled() {
		o.close()
		return nil
	}
	m := &serverMetrics{reg: metrics.NewProcessRegistry(), ln: o.metricsListener, routes: o.routes}
	m.ns = metrics.NewNamesrv(m.reg, metrics.NamesrvSource{
		Routes: func() metrics.RouteStats { return routeStats(s.routes.Stats()) },
		KV:     s.kv.Namespaces,
		Ready:  s.Ready,
	})
	s.kv.m = m.ns
	return m
}

// observer is the remoting.Observer to install: nil when metrics are off.
func (m *serverMetrics) observer() remoting.Observer {
	if m == nil {
		return nil
	}
	return m.ns.Remoting
}

// panic counts a recovered panic (nothing when metrics are off).
func (m *serverMetrics) panic(where string) {
	if m != nil {
		m.ns.Panic(where)
	}
}

// startMetrics binds and serves the endpoint, with s.Ready as readiness check.
func (s *Server) startMetrics() error {
	m := s.metrics
	if m == nil {
		return nil
	}
	routes, err := s.addrRoutes()
	if err != nil {
		if m.ln != nil {
			_ = m.ln.Close()
			m.ln = nil
		}
		return err
	}
	routes = withRoutes(routes, m.routes)
	cfg := s.cfg.Load()
	ep, err := metrics.Listen(metrics.EndpointConfig{Addr: cfg.MetricsAddr(),
		Listener: m.ln, Registry: m.reg, Logger: s.log.Named("metrics"), Routes: routes, Wrap: s.wrapMetricsListener,
		Limits: metrics.LimitsFrom(cfg.MetricsListener)})
	m.ln = nil
	if err != nil {
		return err
	}
	ep.AddReadiness("namesrv", s.Ready)
	m.ep = ep
	s.log.Info("metrics endpoint started", "addr", ep.Addr().String())
	return nil
}

// stopMetrics shuts the endpoint down (or closes an unused listener).
func (s *Server) stopMetrics(ctx context.Context) error {
	m := s.metrics
	switch {
	case m == nil:
		return nil
	case m.ep != nil:
		return m.ep.Shutdown(ctx)
	case m.ln != nil:
		return m.ln.Close()
	}
	return nil
}

// Ready returns nil when the NameServer should receive clients: its
// listener is bound, it is not shutting down, and
// readyAfterBrokerRegistrationSeconds (as of start; an update takes effect
// at the next start) have passed since it started serving, so brokers had
// time to re-register after a restart. Once ready, it stays ready until
// shutdown.
func (s *Server) Ready() error {
	if s.stopping.Load() {
		return errors.New("shutting down")
	}
	since := s.serving.Load()
	if since == nil {
		return errors.New("remoting listener not bound yet")
	}
	if wait := s.readyWait.left(*since); wait > 0 {
		return fmt.Errorf("waiting %s more for brokers to register (readyAfterBrokerRegistrationSeconds=%d)",
			wait.Round(time.Millisecond), s.readyWait.seconds())
	}
	return nil
}

// MetricsAddr is the bound address of the metrics endpoint; nil when
// metrics are off or before Start.
func (s *Server) MetricsAddr() net.Addr {
	if s.metrics == nil || s.metrics.ep == nil {
		return nil
	}
	return s.metrics.ep.Addr()
}

// MetricsRegistry is the registry served on /metrics, for an embedded
// controller to add its families to; nil when metrics are off.
func (s *Server) MetricsRegistry() *metrics.Registry {
	if s.metrics == nil {
		return nil
	}
	return s.metrics.reg
}

// meteredKV is the KV store counting its writes in the metrics (m is nil
// when metrics are off).
type meteredKV struct {
	*kv.Store
	m *metrics.Namesrv
}

// Put implements kvStore.
func (s *meteredKV) Put(ns, key, value string) error {
	return s.count(metrics.KVPut, s.Store.Put(ns, key, value))
}

// Delete implements kvStore.
func (s *meteredKV) Delete(ns, key string) error {
	return s.count(metrics.KVDelete, s.Store.Delete(ns, key))
}

// EnsureNamespace implements kvStore.
func (s *meteredKV) EnsureNamespace(ns string) error {
	return s.count(metrics.KVEnsureNamespace, s.Store.EnsureNamespace(ns))
}

func (s *meteredKV) count(op string, err error) error {
	if s.m != nil {
		s.m.KVWrite(op, err)
	}
	return err
}

// routeStats is what the metrics families read of the route counters.
func routeStats(st route.Stats) metrics.RouteStats {
	return metrics.RouteStats{
		Topics: st.Topics, Brokers: st.Brokers, Clusters: st.Clusters, LiveBrokers: st.LiveBrokers,
		UnregisterQueueDepth: st.UnregisterQueueDepth,
		UnregisterDrops:      st.UnregisterDrops,
		Registrations:        st.Registrations,
		Expiries:             st.Expiries,
		Unregistrations:      st.Unregistrations,
		StaleUnregistrations: st.StaleUnregistrations,
		Publications:         st.Publications,
	}
}
