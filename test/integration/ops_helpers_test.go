package integration

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/namesrv"
)

// startNamesrvWith starts a namesrv.Server on 127.0.0.1 (port 0 unless
// mutate sets one) with the given logger and its state in a temporary
// directory; it is shut down at cleanup unless the test did (Shutdown is
// idempotent).
func startNamesrvWith(t *testing.T, log hclog.Logger, mutate func(*config.NamesrvConfig)) *namesrv.Server {
	t.Helper()
	dir := t.TempDir()
	cfg := config.Default()
	cfg.BindAddress, cfg.ListenPort = "127.0.0.1", 0
	cfg.KVConfigPath = filepath.Join(dir, "kvConfig.json")
	cfg.ConfigStorePath = filepath.Join(dir, "namesrv.properties")
	mutate(cfg)
	srv, err := namesrv.New(cfg, log)
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownBudget()+waitTimeout)
		defer cancel()
		require.NoError(t, srv.Shutdown(ctx))
	})
	return srv
}
