package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/tlsconf"
)

// The tls workload's servers: three NameServers with the small topology,
// told apart only by their tls.* keys and how their clients dial them.
const (
	tlsPlain      = "plain"      // tls.server.mode=disabled, plaintext clients
	tlsEnforcing  = "tls"        // enforcing with a certificate, TLS clients
	tlsPermissive = "permissive" // permissive with a certificate, plaintext clients (first-byte sniff)
)

// tlsVariant is one server of the tls workload.
type tlsVariant struct {
	name  string
	props []string    // tls.* lines of its properties file
	dial  dialFunc    // how lookup clients reach it
	cli   *tls.Config // how the registering broker reaches it (nil: plaintext)
}

// tlsVariants are plain, tls and permissive over pki's certificate.
func tlsVariants(pki *benchPKI) []tlsVariant {
	cert := []string{"tls.server.certPath=" + pki.certPath, "tls.server.keyPath=" + pki.keyPath}
	return []tlsVariant{
		{name: tlsPlain, props: []string{"tls.server.mode=disabled"}, dial: dialTCP},
		{name: tlsEnforcing, props: append([]string{"tls.server.mode=enforcing"}, cert...), dial: pki.dialTLS(), cli: pki.clientConfig()},
		{name: tlsPermissive, props: append([]string{"tls.server.mode=permissive"}, cert...), dial: dialTCP},
	}
}

// tlsServer is a started variant with its registered topology.
type tlsServer struct {
	tlsVariant
	srv *child
	reg *remoting.Client // the brokers' connection
	hb  func()           // stops the brokers' heartbeats
}

// runTLS measures route lookups against a NameServer without TLS, with TLS
// enforced, and in permissive mode serving plaintext, side by side: first
// on long-lived connections (per-record cost), then with a new connection
// every -tls-reconnect-every lookups (handshake cost).
func (e *env) runTLS() (*tlsResult, error) {
	e.log.Info("tls: starting", "key", e.o.tlsKey, "topics", smallTopics, "brokers", smallBrokers)
	pki, err := newBenchPKI(e.dir, e.o.tlsKey)
	if err != nil {
		return nil, err
	}
	topo := newTopology(smallTopics, smallBrokers, smallWidth)
	var servers []*tlsServer
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	for _, v := range tlsVariants(pki) {
		s, err := e.startTLSServer(v, topo)
		if err != nil {
			return nil, err
		}
		servers = append(servers, s)
	}
	res := &tlsResult{KeyType: e.o.tlsKey, Topics: smallTopics, Brokers: smallBrokers, ReconnectEvery: e.o.tlsEvery}
	if res.Handshake, err = describeHandshake(servers[1]); err != nil { // tlsVariants: plain, tls, permissive
		return nil, err
	}
	return res, e.measureTLS(res, servers, topo)
}

// measureTLS runs the steady and the reconnect phases over servers.
func (e *env) measureTLS(res *tlsResult, servers []*tlsServer, topo *topology) error {
	steady, err := e.steadyTargets(servers, topo)
	if err != nil {
		return err
	}
	err = e.rotate(steady)
	for _, t := range steady {
		t.close()
	}
	if err != nil {
		return err
	}
	reconn := e.reconnectTargets(servers, topo)
	if err := e.rotate(reconn); err != nil {
		return err
	}
	res.Steady, res.Reconnect = results(steady), results(reconn)
	res.ratios()
	var errs []error
	for _, s := range servers {
		errs = append(errs, s.srv.alive())
	}
	return errors.Join(errs...)
}

// startTLSServer starts v's NameServer and registers topo on it.
func (e *env) startTLSServer(v tlsVariant, topo *topology) (*tlsServer, error) {
	srv, err := e.tlsNamesrv(v)
	if err != nil {
		return nil, err
	}
	s := &tlsServer{tlsVariant: v, srv: srv}
	if s.reg, err = e.dialWith(srv.addr, v.cli); err != nil {
		s.stop()
		return nil, fmt.Errorf("%s: %w", v.name, err)
	}
	if _, err := registerAll(s.reg, topo); err != nil {
		s.stop()
		return nil, fmt.Errorf("%s: %w", v.name, err)
	}
	// a run of several minutes outlives the 120 s broker timeout
	s.hb = keepAlive(s.reg, topo)
	return s, nil
}

// stop closes the brokers' connection and stops the server.
func (s *tlsServer) stop() {
	if s.hb != nil {
		s.hb()
	}
	if s.reg != nil {
		_ = s.reg.Close()
	}
	s.srv.stop()
}

// tlsNamesrv starts a NameServer child whose properties file carries v's
// tls.* keys (and an empty tls.config.file, so that a machine-wide
// /etc/rocketmq/tls.properties cannot change the run).
func (e *env) tlsNamesrv(v tlsVariant) (*child, error) {
	base := e.dir
	if e.o.profileDir != "" {
		base = e.o.profileDir
	}
	dir, err := os.MkdirTemp(base, "tls-"+v.name+"-")
	if err != nil {
		return nil, err
	}
	tlsFile := filepath.Join(dir, "tls.properties")
	if err := os.WriteFile(tlsFile, nil, 0o600); err != nil {
		return nil, err
	}
	props := append([]string{"tls.config.file=" + tlsFile}, v.props...)
	return startOnFreePort("namesrv-"+v.name, e.nsBin, dir, e.log, func(port int) ([]string, error) {
		cfgPath, err := writeNamesrvConfig(dir, port)
		if err != nil {
			return nil, err
		}
		if err := appendLines(cfgPath, props); err != nil {
			return nil, err
		}
		if e.o.profileDir != "" {
			return []string{"-serve-namesrv", "-cpuprofile", e.profilePath("tls-" + v.name), "-c", cfgPath}, nil
		}
		return []string{"-c", cfgPath}, nil
	})
}

// appendLines appends lines to the file at path.
func appendLines(path string, lines []string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(strings.Join(lines, "\n") + "\n")
	return errors.Join(err, f.Close())
}

// dialWith opens a remoting client, over TLS when cfg is set.
func (e *env) dialWith(addr string, cfg *tls.Config) (*remoting.Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	return remoting.Dial(ctx, addr, remoting.ClientOptions{Logger: e.log.Named("client"), TLS: cfg})
}

// describeHandshake opens one TLS connection to s and says what it
// negotiated (version, cipher suite, key exchange).
func describeHandshake(s *tlsServer) (string, error) {
	nc, err := s.dial(s.srv.addr)
	if err != nil {
		return "", fmt.Errorf("%s: %w", s.name, err)
	}
	defer nc.Close()
	tc, ok := nc.(*tls.Conn)
	if !ok {
		return "", fmt.Errorf("%s: not a TLS connection", s.name)
	}
	st := tc.ConnectionState()
	return fmt.Sprintf("%s %s %s", tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite), st.CurveID), nil
}

// serveTLS loads the tls.* keys of cfg's properties file for an in-process
// NameServer (-serve-namesrv), as cmd/namesrv does.
func serveTLS(cfg *config.NamesrvConfig, log hclog.Logger) (*tlsconf.Manager, error) {
	tc, err := config.LoadTLS(cfg.RawProperties(), nil)
	if err != nil {
		return nil, err
	}
	return tlsconf.New(tc, log.Named("tls"))
}
