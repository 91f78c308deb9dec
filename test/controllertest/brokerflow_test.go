//go:build embedded_controller

package controllertest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
	"github.com/rmqgo/nameserver/test/ctlbroker"
)

// TestBrokerFlow runs tools/brokerflow's flow (what `make cluster` runs
// against three namesrv processes) against three in-process controllers
// and three in-process NameServers, with two and with three brokers.
func TestBrokerFlow(t *testing.T) {
	c := startCluster(t, 3, fastProps)
	nameServers := startNameServers(t, 3)
	for _, n := range []int{3, 2} {
		var out strings.Builder
		ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
		res, err := ctlbroker.Run(ctx, ctlbroker.FlowConfig{
			Controllers: c.addrs(), NameServers: nameServers, BrokerName: fmt.Sprintf("flow-%d", n), Brokers: n,
			HeartbeatInterval: heartbeatInterval, HeartbeatTimeout: 3 * time.Second, StepTimeout: waitLimit, Out: &out,
		})
		cancel()
		t.Log("\n" + out.String())
		require.NoError(t, err)
		require.Equal(t, 21, res.Steps)
		require.EqualValues(t, 2, res.Master, "the lowest surviving id wins a tie")
		t.Logf("failover %v (target %v)", res.Failover, targetFailoverOnClose)
	}
}

// startNameServers starts n NameServers on 127.0.0.1:0 and returns their
// addresses.
func startNameServers(t testing.TB, n int) []string {
	t.Helper()
	var addrs []string
	for i := range n {
		dir := t.TempDir()
		cfg := config.Default()
		cfg.BindAddress, cfg.ListenPort = "127.0.0.1", 0
		cfg.KVConfigPath = filepath.Join(dir, "kvConfig.json")
		cfg.ConfigStorePath = filepath.Join(dir, "namesrv.properties")
		srv, err := namesrv.New(cfg, raftstoretest.TestLogger(t, fmt.Sprintf("ns%d", i)))
		require.NoError(t, err)
		require.NoError(t, srv.Start())
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			require.NoError(t, srv.Shutdown(ctx))
		})
		addrs = append(addrs, srv.Addr().String())
	}
	return addrs
}
