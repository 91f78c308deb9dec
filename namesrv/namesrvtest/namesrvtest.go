// Package namesrvtest starts in-process NameServers for the tests of other
// packages, as net/http/httptest starts HTTP servers: Start gives a running
// namesrv.Server on a loopback port with its state in the test's temporary
// directory, shut down when the test ends. Options change the
// configuration, the logger and the server's options.
//
// The namesrv package's own tests cannot import it (Go forbids the import
// cycle) and start their servers with namesrv's startServer, which does
// the same. Like every test-support package it imports testing: only
// _test.go files and other test-support packages import it, never a
// package linked into a binary under cmd/.
package namesrvtest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/namesrv"
)

// shutdownMargin is added to the configuration's shutdown budget for the
// shutdown at cleanup.
const shutdownMargin = 10 * time.Second

// Option changes how Start builds its server.
type Option func(*setup)

type setup struct {
	mutate []func(*config.NamesrvConfig)
	logger hclog.Logger
	opts   []namesrv.Option
}

// WithConfig lets mutate change the configuration after Config made it;
// several run in order.
func WithConfig(mutate func(c *config.NamesrvConfig)) Option {
	return func(s *setup) { s.mutate = append(s.mutate, mutate) }
}

// WithLogger logs the server to l instead of to t.Log at debug level.
func WithLogger(l hclog.Logger) Option { return func(s *setup) { s.logger = l } }

// WithServerOptions passes opts to namesrv.New.
func WithServerOptions(opts ...namesrv.Option) Option {
	return func(s *setup) { s.opts = append(s.opts, opts...) }
}

// Config is the configuration Start begins from: config.Default() bound
// to 127.0.0.1 on a port the kernel picks, its KV and config files in
// t.TempDir().
func Config(t testing.TB) *config.NamesrvConfig {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.BindAddress, cfg.ListenPort = "127.0.0.1", 0
	cfg.KVConfigPath = filepath.Join(dir, "kvConfig.json")
	cfg.ConfigStorePath = filepath.Join(dir, "namesrv.properties")
	return cfg
}

// Start returns a started NameServer, shut down at cleanup (a test may
// shut it down before: Shutdown is idempotent).
func Start(t testing.TB, opts ...Option) *namesrv.Server {
	t.Helper()
	var s setup
	for _, o := range opts {
		o(&s)
	}
	cfg := Config(t)
	for _, m := range s.mutate {
		m(cfg)
	}
	if s.logger == nil {
		s.logger = testlog.New(t, "namesrv")
	}
	srv, err := namesrv.New(cfg, s.logger, s.opts...)
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownBudget()+shutdownMargin)
		defer cancel()
		require.NoError(t, srv.Shutdown(ctx))
	})
	return srv
}
