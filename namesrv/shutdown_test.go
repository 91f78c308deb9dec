package namesrv

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
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

// TestBrokerCloseDuringGoAwayKeepsRoutes: while the NameServer goes away
// it still answers older clients on their open connections, so a broker
// connection that closes meanwhile (the broker moving to another
// NameServer) must not take its routes out from under those lookups. The
// CI run of TestRollingRestartZeroFailedLookups saw one lookup answered
// TOPIC_NOT_EXIST in the going-away phase: the broker's connection closed
// and its routes were removed while lookups were still being served.
func TestBrokerCloseDuringGoAwayKeepsRoutes(t *testing.T) {
	srv := startServer(t, func(c *config.NamesrvConfig) { c.EnableShutdownGracefully, c.ShutdownWaitTimeSeconds = true, 2 })
	broker, client := dial(t, srv), dial(t, srv)
	resp := invoke(t, broker, registerRequest(t, "b", "10.9.0.1:10911", 3))
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	lookup := func() int32 {
		req := remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": "b-topic-000000"}, nil)
		req.Version = 317 // rocketmq-client-go: served normally while going away
		return invoke(t, client, req).Code
	}
	require.Equal(t, remoting.Success, lookup())
	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), srv.Config().ShutdownBudget())
		defer cancel()
		stopped <- srv.Shutdown(ctx)
	}()
	poll.Until(t, "srv.stopping.Load", 5*time.Second, time.Millisecond, poll.True(srv.stopping.Load))
	require.NoError(t, broker.Close())
	for deadline := time.Now().Add(500 * time.Millisecond); time.Now().Before(deadline); {
		require.Equal(t, remoting.Success, lookup(), "a lookup while going away, after the broker's connection closed")
	}
	require.NoError(t, client.Close())
	require.NoError(t, <-stopped)
}

// TestFailedShutdownServesNothingStale: once shutdown began, a
// closing broker connection no longer removes its routes, so no
// connection may be served after Shutdown returns, even when its context
// ended inside the GO_AWAY phase and it failed: the routes kept for the
// going-away lookups would otherwise stay visible with nobody to remove
// them (the liveness scan is stopped too).
func TestFailedShutdownServesNothingStale(t *testing.T) {
	srv := startServer(t, func(c *config.NamesrvConfig) { c.EnableShutdownGracefully, c.ShutdownWaitTimeSeconds = true, 5 })
	broker, client := dial(t, srv), dial(t, srv)
	require.Equal(t, remoting.Success, invoke(t, broker, registerRequest(t, "b", "10.9.0.1:10911", 3)).Code)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, srv.Shutdown(ctx), context.DeadlineExceeded)
	for _, c := range []*remoting.Client{broker, client} {
		select {
		case <-c.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("a connection is still open after a failed Shutdown")
		}
	}
	_, err := net.DialTimeout("tcp", srv.Addr().String(), time.Second)
	require.Error(t, err, "the listener still accepts after a failed Shutdown")
}
