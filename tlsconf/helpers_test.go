package tlsconf

import (
	"context"
	"crypto/tls"
	"net"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/remoting"
)

const echoCode = 77

func testLogger(t testing.TB) hclog.Logger { return testlog.New(t, "tlsconf") }

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// pki is a CA with a server leaf written as files in dir.
type pki struct {
	ca    *testcerts.CA
	leaf  *testcerts.Leaf
	files testcerts.Files
	dir   string
}

func newPKI(t *testing.T) *pki {
	ca := testcerts.NewCA(t, "test-ca")
	leaf := ca.Issue(t, testcerts.LeafOptions{})
	dir := t.TempDir()
	return &pki{ca: ca, leaf: leaf, files: leaf.WriteFiles(t, dir, "server", ca), dir: dir}
}

// serverTLS returns settings serving p's leaf in mode.
func (p *pki) serverTLS(mode string) *config.TLS {
	c := config.DefaultTLS()
	c.ServerMode, c.ServerCertPath, c.ServerKeyPath = mode, p.files.Cert, p.files.Key
	return c
}

func newManager(t *testing.T, c *config.TLS, opts ...Option) *Manager {
	m, err := New(c, testLogger(t), opts...)
	require.NoError(t, err)
	t.Cleanup(m.Close)
	return m
}

// startEcho serves echoCode behind m's hook and returns the address.
func startEcho(t *testing.T, m *Manager) string {
	s := remoting.NewServer(remoting.ServerConfig{Logger: testLogger(t), ConnHooks: []remoting.ConnHook{m.Hook()},
		HandshakeTimeout: 2 * time.Second})
	s.Register(echoCode, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		return remoting.NewResponse(req, 0, "echo"), nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return ln.Addr().String()
}

// echo dials addr (TLS when cfg is set) and runs one request.
func echo(t *testing.T, addr string, cfg *tls.Config) error {
	c, err := remoting.Dial(ctxT(t), addr, remoting.ClientOptions{TLS: cfg})
	if err != nil {
		return err
	}
	defer c.Close()
	resp, err := c.Invoke(ctxT(t), remoting.NewRequest(echoCode, nil, nil))
	if err != nil {
		return err
	}
	require.EqualValues(t, 0, resp.Code)
	return nil
}

// trusting returns a client config verifying the server against ca.
func trusting(ca *testcerts.CA) *tls.Config {
	return &tls.Config{RootCAs: ca.Pool(), MinVersion: tls.VersionTLS12}
}
