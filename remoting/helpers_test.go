package remoting

import (
	"github.com/rmqgo/nameserver/internal/testlog"

	"context"
	"net"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

// testLogger returns an hclog logger writing to t.Log.
func testLogger(t testing.TB) hclog.Logger { return testlog.New(t, "remoting") }

// startServer serves s on a loopback port and shuts it down at cleanup.
func startServer(t testing.TB, s *Server) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, s.Shutdown(ctx))
		require.NoError(t, <-served)
	})
	return ln.Addr().String()
}

// newTestServer returns a server with a test logger and the given config.
func newTestServer(t testing.TB, cfg ServerConfig) (*Server, string) {
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	s := NewServer(cfg)
	return s, startServer(t, s)
}

// dial connects a client closed at cleanup.
func dial(t testing.TB, addr string, opts ClientOptions) *Client {
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, addr, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// invoke sends req with a 5 s deadline.
func invoke(t testing.TB, c *Client, req *Command) *Command {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.Invoke(ctx, req)
	require.NoError(t, err)
	return resp
}

// frameOf encodes c, failing the test on error.
func frameOf(t testing.TB, c *Command) []byte {
	b, err := AppendFrame(nil, c)
	require.NoError(t, err)
	return b
}
