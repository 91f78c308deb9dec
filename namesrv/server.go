package namesrv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/connlimit"
	"github.com/rmqgo/nameserver/internal/lograte"
	"github.com/rmqgo/nameserver/kv"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/namesrv/route"
	"github.com/rmqgo/nameserver/proxyproto"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/tlsconf"
)

// Server is a running NameServer: the remoting listener, the route tables,
// the KV store and, with metricsExporterType=PROM, the metrics endpoint.
type Server struct {
	cfg      *config.Holder
	log      hclog.Logger
	kv       *meteredKV
	routes   *route.Manager
	rs       *remoting.Server
	ln       net.Listener
	served   chan error
	started  time.Time
	stop     sync.Once
	metrics  *serverMetrics            // nil when metrics are off
	serving  atomic.Pointer[time.Time] // when Start began serving
	stopping atomic.Bool
	lane     *lane // broker registrations, on a lower-priority thread
	// serviceWait and readyWait are the startup config's
	// needWaitForService/waitSecondsForService and
	// readyAfterBrokerRegistrationSeconds (see startupWait).
	serviceWait, readyWait *startupWait
	// sendNotify sends one 905 oneway (sendOneway; tests replace it).
	sendNotify func(ctx context.Context, addr string, req *remoting.Command)
	notes      notifications    // the 905 sends in flight
	acl        *aclCheck        // nil when aclEnable is false
	tls        *tlsconf.Manager // nil: plaintext only (WithTLS)
	warm       *warmup          // nil: no warm-up forwarding (warmup.go)
}

// New validates the configuration and opens the KV store; it opens no port.
func New(cfg *config.NamesrvConfig, logger hclog.Logger, opts ...Option) (*Server, error) {
	o := buildOptions(opts)
	if err := cfg.Validate(); err != nil {
		o.close()
		return nil, err
	}
	// Strangers cause many of its lines (connections, requests, brokers
	// registered): every sub-logger shares one set of limiters.
	logger = lograte.Wrap(logger)
	store, err := kv.OpenKVConfigPath(cfg.KVConfigPath, logger.Named("kv"))
	if err != nil {
		o.close()
		return nil, fmt.Errorf("kvConfigPath (%s): %w", cfg.KVConfigPath, err)
	}
	s := &Server{cfg: config.NewHolder(cfg), log: logger, kv: &meteredKV{Store: store}, started: time.Now(),
		readyWait: newStartupWait(cfg.ReadyAfterBrokerRegistrationSeconds), tls: o.tls}
	if cfg.NeedWaitForService {
		s.serviceWait = newStartupWait(cfg.WaitSecondsForService)
	}
	s.routes = route.NewManager(route.Options{
		Settings:                s.routeSettings,
		ScanInterval:            time.Duration(cfg.ScanNotActiveBrokerInterval) * time.Millisecond,
		UnregisterQueueCap:      cfg.UnRegisterBrokerQueueCapacity,
		Logger:                  logger,
		NotifyMinBrokerIDChange: s.notifyMinBrokerIDChange,
	})
	if s.acl, err = s.newACLCheck(); err != nil {
		o.close()
		_ = store.Close()
		return nil, err
	}
	s.metrics = s.newMetrics(o)
	s.acl.bindMetrics(s.metrics)
	s.registerTLSMetrics()
	s.rs = remoting.NewServer(remoting.ServerConfig{
		MaxFrameLength: cfg.FrameMaxLength,
		IdleTimeout:    time.Duration(cfg.ServerChannelMaxIdleTimeSeconds) * time.Second,
		Logger:         logger.Named("remoting"),
		Observer:       s.metrics.observer(),

		MaxPendingResponseBytes: cfg.ServerChannelMaxPendingResponseBytes,
		PartialFrameBudget:      cfg.ServerPartialFrameBudgetBytes,
		MaxConnections:          cfg.ServerMaxConnections,
		OnPanic:                 func(int32, any) { s.metrics.panic(metrics.PanicRemoting) }, // logged by remoting
		Authorize:               s.acl.authorize(),
		// PROXY header first: HAProxy sends it before the TLS ClientHello
		ConnHooks:    append(proxyproto.ConnHooks(&cfg.ProxyProtocol, logger), s.connHooks()...),
		GoAwayPeriod: cfg.GoAwayPeriod(),
	})
	s.lane = newLane(registrationNice, s.lanePanicked)
	s.sendNotify = s.sendOneway
	s.notes.init()
	s.warm = newWarmup(cfg, logger.Named("warmup"), s.tls.Client, o)
	s.registerWarmupMetrics()
	s.registerProcessors()
	s.rs.OnConnClose(s.onConnClose)
	return s, nil
}

// onConnClose removes the brokers registered over c (Java's
// BrokerHousekeepingService.onChannelClose), except once shutdown began:
// a node going away still answers lookups on its open connections, and a
// broker leaving it for another NameServer must not take its routes out
// from under them (its tables end with the process anyway).
func (s *Server) onConnClose(c *remoting.Conn) {
	if s.stopping.Load() {
		return
	}
	s.routes.OnChannelClose(c)
}

// lanePanicked logs a panic recovered on the registration lane, with its
// stack, and counts it; the request fails with SYSTEM_ERROR.
func (s *Server) lanePanicked(v any, stack []byte) {
	s.log.Error("registration handler panicked", "panic", v, "stack", hclog.CapturedStacktrace(stack))
	s.metrics.panic(metrics.PanicRegistrationLane)
}

func (s *Server) routeSettings() route.Settings {
	c := s.cfg.Load()
	return route.Settings{
		DeleteTopicWithBrokerRegistration: c.DeleteTopicWithBrokerRegistration,
		NotifyMinBrokerIDChanged:          c.NotifyMinBrokerIdChanged,
	}
}

// Start binds the listen address and, when enabled, the metrics endpoint
// (a bind failure of either names the address), then serves in the
// background.
func (s *Server) Start() error {
	addr := s.cfg.Load().ListenAddr()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	if err := s.startMetrics(); err != nil {
		_ = ln.Close()
		return err
	}
	s.ln = ln
	s.served = make(chan error, 1)
	s.routes.Start()
	s.warm.start(ln.Addr())
	go func() { s.served <- s.rs.Serve(ln) }()
	s.checkFdReserve()
	now := time.Now()
	s.serving.Store(&now)
	s.log.Info("name server started", "addr", ln.Addr().String())
	return nil
}

// checkFdReserve warns when serverMaxConnections does not fit in the
// file descriptors the side listeners leave to remoting: the remoting
// listener would then fail its accepts (backing off) before its cap.
func (s *Server) checkFdReserve() {
	reserve, ok := connlimit.RemotingReserve()
	if max := s.cfg.Load().ServerMaxConnections; ok && max > reserve {
		s.log.Warn("serverMaxConnections exceeds the file descriptors left to remoting; raise the fd limit (ulimit -n)",
			"serverMaxConnections", max, "reserve", reserve, "rule", "3/4 of RLIMIT_NOFILE")
	}
}

// Addr is the bound listen address (after Start).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Routes exposes the route tables, for tests and tools in this module.
func (s *Server) Routes() *route.Manager { return s.routes }

// Config is the live configuration.
func (s *Server) Config() *config.NamesrvConfig { return s.cfg.Load() }

// Shutdown turns /readyz to 503, stops accepting, lets in-flight requests
// finish, stops the route tables, waits for the broker notifications in
// flight (cut short when ctx ends first), stops the metrics endpoint and
// closes the KV store.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.stop.Do(func() {
		s.stopping.Store(true)
		if s.ln != nil {
			// The GO_AWAY phase follows the live config, as the budget
			// callers derive from it does (ShutdownBudget).
			s.rs.SetGoAwayPeriod(s.cfg.Load().GoAwayPeriod())
			err = s.rs.Shutdown(ctx)
			<-s.served
			s.routes.Stop()
		}
		s.warm.close()
		s.lane.close()
		s.acl.close()
		err = errors.Join(err, s.notes.close(ctx), s.stopMetrics(ctx), s.kv.Close())
		s.log.Info("name server stopped")
	})
	return err
}
