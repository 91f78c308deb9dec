package namesrv

import (
	"github.com/rmqgo/nameserver/internal/testlog"

	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
)

// testLogger routes logs to t.Log.
func testLogger(t testing.TB) hclog.Logger { return testlog.New(t, t.Name()) }

// testConfig is a loopback configuration with its state in a temporary
// directory, the one startServer starts from. (This package's tests
// cannot import namesrvtest, which imports namesrv: these helpers are its
// in-package twin.)
func testConfig(t testing.TB) *config.NamesrvConfig {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.BindAddress, cfg.ListenPort = "127.0.0.1", 0
	cfg.KVConfigPath = filepath.Join(dir, "kvConfig.json")
	cfg.ConfigStorePath = filepath.Join(dir, "namesrv.properties")
	return cfg
}

// startServer starts a NameServer on testConfig changed by mutate (when
// not nil) with opts, logging to t.Log; it is shut down at cleanup.
func startServer(t testing.TB, mutate func(c *config.NamesrvConfig), opts ...Option) *Server {
	t.Helper()
	return startLogged(t, testLogger(t), mutate, opts...)
}

// startLogged is startServer logging to logger.
func startLogged(t testing.TB, logger hclog.Logger, mutate func(c *config.NamesrvConfig), opts ...Option) *Server {
	t.Helper()
	cfg := testConfig(t)
	if mutate != nil {
		mutate(cfg)
	}
	srv, err := New(cfg, logger, opts...)
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, srv.Shutdown(ctx))
	})
	return srv
}

// dial opens a client connection to the server.
func dial(t testing.TB, srv *Server) *remoting.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, srv.Addr().String(), remoting.ClientOptions{Logger: testLogger(t)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// invoke sends a request and waits for its response.
func invoke(t testing.TB, c *remoting.Client, req *remoting.Command) *remoting.Command {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.Invoke(ctx, req)
	require.NoError(t, err)
	return resp
}
