//go:build embedded_controller

package dashboard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/namesrv"
)

// group is the peer lists of a Controller group on loopback ports.
type group struct{ dleger, raft []string }

func newGroup(t *testing.T, ids ...string) group {
	var g group
	for _, id := range ids {
		g.dleger = append(g.dleger, fmt.Sprintf("%s-127.0.0.1:%d", id, freePort(t)))
		g.raft = append(g.raft, fmt.Sprintf("%s-127.0.0.1:%d", id, freePort(t)))
	}
	return g
}

// startControllerNode runs a NameServer with its embedded Controller as
// node id of g; it is stopped when the test ends.
func startControllerNode(t *testing.T, g group, id string) (*namesrv.Server, *controller.Controller) {
	dir := t.TempDir()
	props := strings.Join([]string{"bindAddress=127.0.0.1", "listenPort=0",
		"kvConfigPath=" + filepath.Join(dir, "kvConfig.json"), "metricsExporterType=PROM",
		fmt.Sprintf("metricsPromExporterPort=%d", freePort(t)), "enableControllerInNamesrv=true",
		"controllerDLegerGroup=g", "controllerDLegerSelfId=" + id,
		"controllerDLegerPeers=" + strings.Join(g.dleger, ";"),
		"controllerRaftPeers=" + strings.Join(g.raft, ";"),
		"controllerStorePath=" + filepath.Join(dir, "ctl")}, "\n") + "\n"
	path := filepath.Join(dir, "namesrv.properties")
	require.NoError(t, os.WriteFile(path, []byte(props), 0o600))
	cfg, err := config.Load(path)
	require.NoError(t, err)
	logger := testlog.New(t, "namesrv-"+id)
	srv, err := namesrv.New(cfg, logger)
	require.NoError(t, err)
	m := metrics.NewController(srv.MetricsRegistry())
	ctl, err := controller.New(&cfg.Controller, logger, controller.WithMetrics(m))
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	require.NoError(t, ctl.Start())
	ctl.ExportMetrics(m)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = ctl.Shutdown(ctx)
		_ = srv.Shutdown(ctx)
	})
	return srv, ctl
}

// Every expression of the Controller row returns data from a real
// Prometheus scraping a fresh one-node NameServer with its embedded
// Controller, leader elected, no broker yet.
func TestDashboardControllerPanelsHaveData(t *testing.T) {
	bin := prometheusBinary(t)
	srv, ctl := startControllerNode(t, newGroup(t, "n0"), "n0")
	poll.Until(t, "ctl.IsReadyLeader", 30*time.Second, 20*time.Millisecond, poll.True(ctl.IsReadyLeader))
	base := startPrometheus(t, bin, srv.MetricsAddr().String())
	poll.Until(t, "prometheus to scrape the Controller three times", 60*time.Second, 200*time.Millisecond, poll.True(func() bool {
		n, _, ok := query(base, `count_over_time(rocketmq_controller_leader_ready{job="rocketmq"}[10s]) >= 3`)
		return ok && n == 1
	}))
	requirePanelsHaveData(t, base, panelsOf(t, "Controller"))
}

// In a group of three with n2 never started, n0 and n1 elect a leader;
// the leader's failed Raft RPCs to n2 show on the Raft transport errors
// panel by peer, and Ready leader counts the leader.
func TestDashboardRaftTransportErrorsShowADownPeer(t *testing.T) {
	bin := prometheusBinary(t)
	g := newGroup(t, "n0", "n1", "n2")
	srv0, ctl0 := startControllerNode(t, g, "n0")
	srv1, ctl1 := startControllerNode(t, g, "n1")
	poll.Until(t, "a leader among n0 and n1", 60*time.Second, 50*time.Millisecond, poll.True(func() bool { return ctl0.IsReadyLeader() || ctl1.IsReadyLeader() }))
	base := startPrometheus(t, bin, srv0.MetricsAddr().String(), srv1.MetricsAddr().String())
	errs := panelExpr(t, "Raft transport errors", "A")
	requireEventuallyAtLeast(t, base, strings.Replace(errs, " or vector(0)", "", 1)+` and on (peer) {peer="n2"}`, 0.01)
	v, ok := queryMax(base, panelExpr(t, "Ready leader", "A"))
	require.True(t, ok)
	require.Equal(t, 1.0, v)
}
