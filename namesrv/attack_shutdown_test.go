package namesrv

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
)

// TestAttackRemoteUpdateCutsGracefulShutdown: enableShutdownGracefully
// and shutdownWaitTimeSeconds are updatable (UPDATE_NAMESRV_CONFIG, as
// Java's NettyServerConfig keys, read by Java at shutdown). The shutdown
// budget cmd/namesrv gives Shutdown followed an update, but the GO_AWAY
// phase kept the period of the start: after enableShutdownGracefully=false
// a connected peer kept the server in its one-second GO_AWAY phase for the
// whole one-second budget, the drain got none, and Shutdown failed
// (context deadline exceeded: in-flight requests cut, exit status 1). The
// phase now follows the live config, as the budget does.
func TestAttackRemoteUpdateCutsGracefulShutdown(t *testing.T) {
	srv := startServer(t, func(c *config.NamesrvConfig) { c.EnableShutdownGracefully, c.ShutdownWaitTimeSeconds = true, 1 })
	c := dial(t, srv)
	resp := invoke(t, c, remoting.NewRequest(remoting.UpdateNamesrvConfig, nil, []byte("enableShutdownGracefully=false")))
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	ctx, cancel := context.WithTimeout(context.Background(), srv.Config().ShutdownBudget()) // as cmd/namesrv does
	defer cancel()
	require.NoError(t, srv.Shutdown(ctx))
}
