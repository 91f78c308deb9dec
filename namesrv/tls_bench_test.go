package namesrv

import (
	"context"
	"crypto/tls"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/tlsconf"
)

// benchTLSServer is a NameServer of BenchmarkLookupPlainVsTLS and how its
// clients dial it.
type benchTLSServer struct {
	addr string
	cli  *tls.Config // nil: plaintext
}

// startBenchTLSServer starts a NameServer in tls.server.mode mode (with a
// CA-signed P-256 certificate unless disabled) and registers one broker
// with 16 topics. Server logs are discarded so that logging does not
// weigh on the figures.
func startBenchTLSServer(b *testing.B, mode string, tlsClients bool) *benchTLSServer {
	dir := b.TempDir()
	ca := testcerts.NewCA(b, "bench-ca")
	files := ca.Issue(b, testcerts.LeafOptions{}).WriteFiles(b, dir, "server", ca)
	tc := config.DefaultTLS()
	tc.ServerMode = mode
	if mode != config.TLSModeDisabled {
		tc.ServerCertPath, tc.ServerKeyPath = files.Cert, files.Key
	}
	m, err := tlsconf.New(tc, hclog.NewNullLogger())
	require.NoError(b, err)
	b.Cleanup(m.Close)
	cfg := config.Default()
	cfg.BindAddress, cfg.ListenPort = "127.0.0.1", 0
	cfg.KVConfigPath, cfg.ConfigStorePath = filepath.Join(dir, "kvConfig.json"), filepath.Join(dir, "namesrv.properties")
	srv, err := New(cfg, hclog.NewNullLogger(), WithTLS(m))
	require.NoError(b, err)
	require.NoError(b, srv.Start())
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(b, srv.Shutdown(ctx))
	})
	s := &benchTLSServer{addr: srv.Addr().String()}
	if tlsClients {
		s.cli = &tls.Config{RootCAs: ca.Pool(), ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	}
	reg := s.dial(b)
	b.Cleanup(func() { _ = reg.Close() })
	require.Equal(b, remoting.Success, invoke(b, reg, registerRequest(b, "bench-b", "127.0.0.1:10911", 16)).Code)
	return s
}

// dial opens a client as the server's clients do (a full handshake each
// time: no session cache).
func (s *benchTLSServer) dial(b testing.TB) *remoting.Client {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, s.addr, remoting.ClientOptions{TLS: s.cli})
	require.NoError(b, err)
	return c
}

// lookup is one GET_ROUTEINFO_BY_TOPIC that must succeed.
func (s *benchTLSServer) lookup(b testing.TB, c *remoting.Client, req *remoting.Command) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.Invoke(ctx, req)
	if err != nil || resp.Code != remoting.Success || len(resp.Body) == 0 {
		b.Fatalf("lookup: %v (%+v)", err, resp)
	}
}

// BenchmarkLookupPlainVsTLS is the CPU cost of a route lookup without TLS
// (disabled), over TLS (enforcing) and plaintext on a permissive listener
// (first-byte sniff), client and server in this process on all cores:
// "steady" reuses one connection per goroutine (per-record cost), "connect"
// opens a connection per lookup (handshake cost). Compare ns/op across
// the sub-benchmarks; tools/loadgen -workload tls gives the end-to-end
// figures. Besides ns/op (wall time, which other processes on a shared
// machine inflate) it reports cpu-ns/op: this process's CPU time, client
// and server together, per lookup.
func BenchmarkLookupPlainVsTLS(b *testing.B) {
	variants := []struct {
		name, mode string
		tls        bool
	}{
		{"plain", config.TLSModeDisabled, false},
		{"tls", config.TLSModeEnforcing, true},
		{"permissive", config.TLSModePermissive, false},
	}
	req := &remoting.Command{Code: remoting.GetRouteinfoByTopic, Language: remoting.LanguageGo, Version: 317,
		ExtFields: map[string]string{"topic": "bench-b-topic-000003"}}
	for _, v := range variants {
		b.Run("steady/"+v.name, func(b *testing.B) {
			s := startBenchTLSServer(b, v.mode, v.tls)
			withCPUMetric(b, func() {
				b.RunParallel(func(pb *testing.PB) {
					c := s.dial(b)
					defer c.Close()
					for pb.Next() {
						s.lookup(b, c, req)
					}
				})
			})
		})
		b.Run("connect/"+v.name, func(b *testing.B) {
			s := startBenchTLSServer(b, v.mode, v.tls)
			withCPUMetric(b, func() {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						c := s.dial(b)
						s.lookup(b, c, req)
						_ = c.Close()
					}
				})
			})
		})
	}
}

// withCPUMetric runs fn and reports the process CPU time per b.N as
// cpu-ns/op.
func withCPUMetric(b *testing.B, fn func()) {
	cpu0 := processCPU()
	fn()
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}
