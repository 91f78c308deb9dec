//go:build embedded_controller

package dashboard

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/namesrv"
)

// Every expression of the Controller row returns data from a real
// Prometheus scraping a fresh one-node NameServer with its embedded
// Controller, leader elected, no broker yet.
func TestDashboardControllerPanelsHaveData(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus not installed (apt-get install prometheus)")
	}
	dir := t.TempDir()
	props := strings.Join([]string{"bindAddress=127.0.0.1", "listenPort=0",
		"kvConfigPath=" + filepath.Join(dir, "kvConfig.json"), "metricsExporterType=PROM",
		fmt.Sprintf("metricsPromExporterPort=%d", freePort(t)), "enableControllerInNamesrv=true",
		"controllerDLegerGroup=g", "controllerDLegerSelfId=n0",
		fmt.Sprintf("controllerDLegerPeers=n0-127.0.0.1:%d", freePort(t)),
		fmt.Sprintf("controllerRaftPeers=n0-127.0.0.1:%d", freePort(t)),
		"controllerStorePath=" + filepath.Join(dir, "ctl")}, "\n") + "\n"
	path := filepath.Join(dir, "namesrv.properties")
	require.NoError(t, os.WriteFile(path, []byte(props), 0o600))
	cfg, err := config.Load(path)
	require.NoError(t, err)
	logger := testlog.New(t, "namesrv")
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
	require.Eventually(t, ctl.IsReadyLeader, 30*time.Second, 20*time.Millisecond)
	base := startPrometheus(t, bin, srv.MetricsAddr().String())
	require.Eventually(t, func() bool {
		n, _, ok := query(base, `count_over_time(rocketmq_controller_leader_ready{job="rocketmq"}[10s]) >= 3`)
		return ok && n == 1
	}, 60*time.Second, 200*time.Millisecond, "prometheus never scraped the Controller three times")
	requirePanelsHaveData(t, base, panelsOf(t, "Controller"))
}
