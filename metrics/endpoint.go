package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/internal/connlimit"
	"github.com/rmqgo/nameserver/internal/lograte"
)

// EndpointConfig configures an Endpoint.
type EndpointConfig struct {
	// Addr is the host:port to bind; ignored when Listener is set.
	Addr string
	// Listener, when set, is served instead of binding Addr (tests on
	// port 0). The endpoint takes ownership of it.
	Listener net.Listener
	// Registry is served on /metrics; nil serves an empty page.
	Registry *Registry
	// Logger receives errors, net/http's too, rate-limited
	// (lograte.Wrap); nil discards them.
	Logger hclog.Logger
	// Routes are further handlers by http.ServeMux pattern (the
	// NameServer's address service, package nsaddr).
	Routes map[string]http.Handler
	// Wrap, when set, wraps the listener before it is served (TLS), after
	// the connection cap (a refused connection costs no handshake).
	Wrap func(net.Listener) net.Listener
	// Limits bound the connections, their headers and their timeouts.
	Limits Limits
}

// Endpoint is the HTTP listener of /metrics, /healthz and /readyz.
type Endpoint struct {
	ln     net.Listener
	capped *connlimit.Listener
	srv    *http.Server
	log    hclog.Logger
	served chan struct{}

	mu     sync.Mutex
	checks []readiness
}

type readiness struct {
	name  string
	check func() error
}

// Listen binds the endpoint and serves it in the background. A bind
// failure names the address.
func Listen(cfg EndpointConfig) (*Endpoint, error) {
	ln := cfg.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", cfg.Addr); err != nil {
			return nil, fmt.Errorf("metrics: cannot listen on %s: %w", cfg.Addr, err)
		}
	}
	e := &Endpoint{log: lograte.Wrap(cfg.Logger), served: make(chan struct{})}
	lim := cfg.Limits.withDefaults()
	e.capped = connlimit.Wrap(ln, connlimit.Config{Max: lim.MaxConnections, Budget: lim.Budget, Logger: e.log})
	e.ln = e.capped
	if cfg.Wrap != nil {
		e.ln = cfg.Wrap(e.ln)
	}
	reg := cfg.Registry
	if reg == nil {
		reg = NewRegistry()
	}
	mux := e.mux(reg.Handler(e.log))
	for pattern, h := range cfg.Routes {
		mux.Handle(pattern, h)
	}
	e.srv = lim.server(mux)
	// net/http's own lines (accept errors, handler panics) go to the
	// rate-limited logger, not to the process's stderr.
	e.srv.ErrorLog = e.log.StandardLogger(&hclog.StandardLoggerOptions{ForceLevel: hclog.Warn})
	go e.serve()
	return e, nil
}

func (e *Endpoint) serve() {
	defer close(e.served)
	if err := e.srv.Serve(e.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		e.log.Error("metrics endpoint stopped", "addr", e.ln.Addr().String(), "error", err)
	}
}

func (e *Endpoint) mux(metrics http.Handler) *http.ServeMux {
	m := http.NewServeMux()
	m.Handle("GET /metrics", metrics)
	m.HandleFunc("GET /healthz", e.healthz)
	m.HandleFunc("GET /readyz", e.readyz)
	return m
}

// Addr is the bound address.
func (e *Endpoint) Addr() net.Addr { return e.ln.Addr() }

// Conns reports the open connections and how many were closed to admit
// new ones over Limits.MaxConnections or the side budget (the oldest
// gives its place: an HTTP client never proves itself).
func (e *Endpoint) Conns() (open int, evicted uint64) { return e.capped.Open(), e.capped.Evicted() }

// AddReadiness adds a check to /readyz: it is ready when every check
// returns nil. A failing check's error, prefixed by name, is the 503 body.
func (e *Endpoint) AddReadiness(name string, check func() error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.checks = append(e.checks, readiness{name, check})
}

// Ready runs the readiness checks in the order they were added and
// returns the first failure.
func (e *Endpoint) Ready() error {
	e.mu.Lock()
	checks := e.checks
	e.mu.Unlock()
	for _, c := range checks {
		if err := c.check(); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return nil
}

// Shutdown stops accepting, waits for in-flight scrapes (bounded by ctx)
// and closes the listener.
func (e *Endpoint) Shutdown(ctx context.Context) error {
	err := e.srv.Shutdown(ctx)
	<-e.served
	if err != nil {
		_ = e.srv.Close()
		return fmt.Errorf("metrics: shutdown %s: %w", e.ln.Addr(), err)
	}
	return nil
}

func (e *Endpoint) healthz(w http.ResponseWriter, _ *http.Request) {
	writeText(w, http.StatusOK, "ok")
}

func (e *Endpoint) readyz(w http.ResponseWriter, _ *http.Request) {
	if err := e.Ready(); err != nil {
		writeText(w, http.StatusServiceUnavailable, "not ready: "+err.Error())
		return
	}
	writeText(w, http.StatusOK, "ok")
}

func writeText(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body + "\n"))
}

// ExporterAddr returns the address of the Prometheus endpoint configured
// by Java's keys (metricsExporterType, metricsPromExporterHost,
// metricsPromExporterPort) and whether it is enabled (type PROM). An empty
// host means bindAddress.
func ExporterAddr(exporterType, host, bindAddress string, port int) (string, bool) {
	if host == "" {
		host = bindAddress
	}
	return net.JoinHostPort(host, fmt.Sprint(port)), exporterType == "PROM"
}
