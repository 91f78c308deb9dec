package tlsconf

import (
	"crypto/tls"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/lograte"
)

// DefaultReloadInterval is how often the files are checked for changes.
const DefaultReloadInterval = 5 * time.Second

// Manager holds the live TLS material of a process: it builds the server
// and client configs from config.TLS, hands the current ones to every new
// connection, and reloads them when a file changes.
type Manager struct {
	cfg       *config.TLS
	log       hclog.Logger
	test      *tls.Certificate // test-mode certificate, nil when off
	cur       atomic.Pointer[material]
	serverTLS *tls.Config // asks cur for the config of each handshake
	w         *watcher
	failures  atomic.Uint64
	reloads   atomic.Uint64
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// Option adjusts a Manager built by New.
type Option func(*options)

type options struct{ interval time.Duration }

// WithReloadInterval sets how often the files are checked; 0 or less
// turns reloading off.
func WithReloadInterval(d time.Duration) Option { return func(o *options) { o.interval = d } }

// New validates cfg, loads every file it names (an error names the key and
// the file) and, unless reloading is off, starts watching them. Close
// stops the watcher. Its log lines are rate-limited (lograte.Wrap): a
// stranger causes one per connection refused by the sniff.
func New(cfg *config.TLS, logger hclog.Logger, opts ...Option) (*Manager, error) {
	o := options{interval: DefaultReloadInterval}
	for _, opt := range opts {
		opt(&o)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Manager{cfg: cfg.Clone(), log: lograte.Wrap(logger).Named("tls"), stop: make(chan struct{}), done: make(chan struct{})}
	if err := m.init(); err != nil {
		return nil, err
	}
	m.serverTLS = &tls.Config{MinVersion: tls.VersionTLS12, GetConfigForClient: m.configForClient}
	go m.watch(o.interval)
	m.logStart()
	return m, nil
}

func (m *Manager) init() error {
	if m.cfg.TestModeEnable {
		var err error
		if m.test, err = selfSigned("localhost"); err != nil {
			return err
		}
	}
	m.w = newWatcher(m.cfg)
	mat, err := loadMaterial(m.cfg, m.test)
	if err != nil {
		return err
	}
	m.cur.Store(mat)
	return nil
}

func (m *Manager) configForClient(*tls.ClientHelloInfo) (*tls.Config, error) {
	if s := m.cur.Load().server; s != nil {
		return s, nil
	}
	return nil, fmt.Errorf("%w: no server certificate", ErrTLSRefused)
}

// ServesTLS reports whether the remoting listeners accept TLS handshakes.
func (m *Manager) ServesTLS() bool { return m.cur.Load().server != nil }

// Mode is tls.server.mode.
func (m *Manager) Mode() string { return m.cfg.Mode() }

// Client returns the TLS config for a connection this process opens, or
// nil when tls.enable is false (plaintext, as Java's TlsSystemConfig.tlsEnable).
// Each call returns the material current at that moment.
func (m *Manager) Client() *tls.Config {
	if m == nil || !m.cfg.Enable {
		return nil
	}
	return m.cur.Load().client
}

// ReloadFailures counts reloads that failed (the previous material kept).
func (m *Manager) ReloadFailures() uint64 { return m.failures.Load() }

// Reloads counts successful reloads.
func (m *Manager) Reloads() uint64 { return m.reloads.Load() }

// Close stops watching the files. Connections keep working.
func (m *Manager) Close() {
	m.closeOnce.Do(func() { close(m.stop) })
	<-m.done
}

func (m *Manager) logStart() {
	m.log.Debug("tls settings", "settings", m.cfg.Properties())
	mat := m.cur.Load()
	switch {
	case m.test != nil && !m.cfg.ServerCertConfigured() && mat.server != nil:
		m.log.Warn("serving a generated self-signed test certificate (tls.test.mode.enable=true); clients cannot verify it, do not use it in production",
			"mode", m.Mode(), "serial", m.test.Leaf.SerialNumber.String())
		m.warnUnverifiedClients()
	case mat.server != nil:
		leaf := mat.server.Certificates[0].Leaf
		m.log.Info("tls enabled", "mode", m.Mode(), "client_auth", m.cfg.ClientAuth(),
			"subject", leaf.Subject.String(), "serial", leaf.SerialNumber.String(), "not_after", leaf.NotAfter)
		m.warnValidity(leaf.NotBefore, leaf.NotAfter)
		m.warnUnverifiedClients()
	case m.Mode() == config.TLSModePermissive:
		m.log.Info("tls permissive without a certificate: only plaintext is served (set tls.server.certPath and tls.server.keyPath to accept tls)")
	}
}

// warnUnverifiedClients warns when client certificates are asked for but
// not verified (Java's InsecureTrustManagerFactory: any certificate, a
// self-signed one included, lets a client in), or verified against the
// system roots (any certificate of a public CA does).
func (m *Manager) warnUnverifiedClients() {
	need := m.cfg.ClientAuth()
	if need == config.TLSClientAuthNone {
		return
	}
	switch {
	case !m.cfg.ServerAuthClient:
		m.log.Warn("tls.server.authClient=false accepts any client certificate, a self-signed one included; "+
			"set tls.server.authClient=true and tls.server.trustCertPath to verify them", "need_client_auth", need)
	case m.cfg.ServerTrustCertPath == "":
		m.log.Warn("client certificates are verified against the system roots, so any public CA's certificate gets in; "+
			"set tls.server.trustCertPath to your CA", "need_client_auth", need)
	}
}

func (m *Manager) warnValidity(notBefore, notAfter time.Time) {
	now := time.Now()
	if now.After(notAfter) || now.Before(notBefore) {
		m.log.Warn("the server certificate is outside its validity period; clients that verify it will refuse it",
			"not_before", notBefore, "not_after", notAfter)
	}
}

// ClientConfig is the client side for a process that only opens
// connections for a short while (mqadmin, `controller -probe`): it
// validates and loads tls.enable and the tls.client.* keys only
// (config.TLS.ClientSide), once, and watches nothing.
func ClientConfig(cfg *config.TLS) (*tls.Config, error) {
	m, err := New(cfg.ClientSide(), hclog.NewNullLogger(), WithReloadInterval(0))
	if err != nil {
		return nil, err
	}
	defer m.Close()
	return m.Client(), nil
}
