package namesrv

import (
	"net"

	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/tlsconf"
)

// WithTLS applies m (the tls.* settings) to the server: the remoting
// listener sniffs each connection's first byte and serves TLS or plaintext
// as tls.server.mode says, the metrics listener likewise, and the 905
// notifications dial brokers with TLS when tls.enable is true. The caller
// keeps ownership of m (and closes it after Shutdown).
func WithTLS(m *tlsconf.Manager) Option { return func(o *options) { o.tls = m } }

// connHooks are the remoting listener's ConnHooks: the TLS sniff when TLS
// is served. A PROXY-protocol hook, which reads a header sent before the
// ClientHello, must come before it.
func (s *Server) connHooks() []remoting.ConnHook { return s.tls.ConnHooks() }

// wrapMetricsListener sniffs metrics connections like remoting ones.
func (s *Server) wrapMetricsListener(ln net.Listener) net.Listener { return s.tls.Listener(ln) }

// registerTLSMetrics exports the certificate reloads (successful and
// failed) when both TLS and metrics are on.
func (s *Server) registerTLSMetrics() {
	if s.tls == nil || s.metrics == nil {
		return
	}
	s.metrics.reg.Register(
		metrics.NewCounterFunc(metrics.NamesrvPrefix+"_tls_reloads_total",
			"TLS certificate and key reloads after their files changed.",
			func() float64 { return float64(s.tls.Reloads()) }),
		metrics.NewCounterFunc(metrics.NamesrvPrefix+"_tls_reload_failures_total",
			"TLS reloads that failed; the previous certificates are kept.",
			func() float64 { return float64(s.tls.ReloadFailures()) }))
}
