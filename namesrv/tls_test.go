package namesrv

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/tlsconf"
)

// tlsFixture is a CA, a server certificate written as files and the TLS
// settings serving it in mode.
type tlsFixture struct {
	ca    *testcerts.CA
	files testcerts.Files
	cfg   *config.TLS
}

func newTLSFixture(t *testing.T, mode string) *tlsFixture {
	ca := testcerts.NewCA(t, "namesrv-test-ca")
	files := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "server", ca)
	c := config.DefaultTLS()
	c.ServerMode, c.ServerCertPath, c.ServerKeyPath = mode, files.Cert, files.Key
	return &tlsFixture{ca: ca, files: files, cfg: c}
}

func (f *tlsFixture) manager(t *testing.T) *tlsconf.Manager {
	m, err := tlsconf.New(f.cfg, testLogger(t))
	require.NoError(t, err)
	t.Cleanup(m.Close)
	return m
}

func (f *tlsFixture) client() *tls.Config {
	return &tls.Config{RootCAs: f.ca.Pool(), ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}

// TestGoldenReplayOverTLS: the Java 5.3 exchanges give the same replies
// over TLS on an enforcing listener.
func TestGoldenReplayOverTLS(t *testing.T) {
	f := newTLSFixture(t, config.TLSModeEnforcing)
	srv := startServer(t, func(*config.NamesrvConfig) {}, WithTLS(f.manager(t)))
	replayGolden(t, srv, func(addr string) (net.Conn, error) { return tls.Dial("tcp", addr, f.client()) })
}

// TestMetricsListenerFollowsTLSMode: the metrics and health listener
// sniffs like the remoting one: both in permissive mode, https only when
// enforcing.
func TestMetricsListenerFollowsTLSMode(t *testing.T) {
	for _, mode := range []string{config.TLSModePermissive, config.TLSModeEnforcing} {
		t.Run(mode, func(t *testing.T) {
			f := newTLSFixture(t, mode)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			srv := startServer(t, func(c *config.NamesrvConfig) { c.MetricsExporterType = "PROM" },
				WithMetricsListener(ln), WithTLS(f.manager(t)))
			addr := srv.MetricsAddr().String()
			secure := &http.Client{Transport: &http.Transport{TLSClientConfig: f.client()}, Timeout: 10 * time.Second}
			resp, err := secure.Get("https://" + addr + "/healthz")
			require.NoError(t, err)
			_ = resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			resp, err = secure.Get("https://" + addr + "/metrics")
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			require.NoError(t, err)
			require.Contains(t, string(body), "rocketmq_namesrv_tls_reload_failures_total 0")
			plain := &http.Client{Timeout: 10 * time.Second}
			resp, err = plain.Get("http://" + addr + "/healthz")
			if mode == config.TLSModeEnforcing {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			_ = resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
		})
	}
}

// TestNotifyDialsBrokerWithTLS: with tls.enable, 905 goes to a broker
// whose listener enforces TLS.
func TestNotifyDialsBrokerWithTLS(t *testing.T) {
	broker := newTLSFixture(t, config.TLSModeEnforcing)
	var got atomic.Int32
	bs := remoting.NewServer(remoting.ServerConfig{Logger: testLogger(t), ConnHooks: []remoting.ConnHook{broker.manager(t).Hook()}})
	bs.Register(remoting.NotifyMinBrokerIDChange, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		got.Add(1)
		return nil, nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = bs.Serve(ln) }()
	t.Cleanup(func() { _ = bs.Shutdown(context.Background()) })

	cc := config.DefaultTLS()
	cc.Enable = true
	m, err := tlsconf.New(cc, testLogger(t))
	require.NoError(t, err)
	t.Cleanup(m.Close)
	srv := startServer(t, func(*config.NamesrvConfig) {}, WithTLS(m))
	srv.sendOneway(context.Background(), ln.Addr().String(), remoting.NewRequest(remoting.NotifyMinBrokerIDChange, nil, nil))
	poll.Until(t, "got.Load() == 1", 10*time.Second, 10*time.Millisecond, poll.True(func() bool { return got.Load() == 1 }))
}

// TestDisabledAndCertlessServePlaintextOnly: with tls.server.mode=disabled
// (or no certificate) the listener runs no hook, serves plaintext as
// before, and a TLS client is closed (its ClientHello read as an oversized
// frame).
func TestDisabledAndCertlessServePlaintextOnly(t *testing.T) {
	f := newTLSFixture(t, config.TLSModeDisabled)
	srv := startServer(t, func(*config.NamesrvConfig) {}, WithTLS(f.manager(t)))
	c := dial(t, srv)
	resp := invoke(t, c, remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": "x"}, nil))
	require.EqualValues(t, remoting.TopicNotExist, resp.Code)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := remoting.Dial(ctx, srv.Addr().String(), remoting.ClientOptions{TLS: f.client()})
	require.Error(t, err)
}
