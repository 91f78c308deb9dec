//go:build embedded_controller

package main

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/metrics/metricstest"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
	"github.com/rmqgo/nameserver/remoting"
)

// TestStandaloneMetricsEndpoint runs a one-node controller with
// metricsExporterType=PROM on an OS-chosen port and checks its /readyz,
// /healthz and /metrics.
func TestStandaloneMetricsEndpoint(t *testing.T) {
	n := startTestNode(t, "metricsExporterType=PROM", "metricsPromExporterHost=127.0.0.1", "metricsPromExporterPort=0")
	require.NotNil(t, n.ep)
	base := "http://" + n.ep.Addr().String()
	metricstest.WaitStatus(t, base+"/readyz", http.StatusOK, 15*time.Second)
	status, _ := metricstest.Get(t, base+"/healthz")
	require.Equal(t, http.StatusOK, status)

	resp, err := call(n.ctl.Addr(), remoting.NewRequest(remoting.ControllerGetMetadataInfo, nil, nil))
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	fs := metricstest.Scrape(t, n.ep.Addr().String())
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_requests_total", "code", "1005", "response_code", "0"))
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_raft_state", "state", "Leader"))
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_raft_leader", "leader_id", "n0"))
	require.Equal(t, 0.0, fs.Sum("rocketmq_controller_broker_sets"))
	require.True(t, fs.Has("go_goroutines"))
	require.False(t, fs.Has("rocketmq_namesrv_requests_total"))
}

// TestReadyzStartingBeforeAttach: until the controller runs, /readyz says
// so.
func TestReadyzStartingBeforeAttach(t *testing.T) {
	cfg := loadTestConfig(t, "127.0.0.1:1", "127.0.0.1:2", "metricsExporterType=PROM", "metricsPromExporterPort=0")
	cfg.BindAddress = "127.0.0.1"
	pe, err := listenMetrics(cfg, raftstoretest.TestLogger(t, "ctl"), metrics.EndpointConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pe.shutdown(context.Background())) })
	status, body := metricstest.Get(t, "http://"+pe.ep.Addr().String()+"/readyz")
	require.Equal(t, http.StatusServiceUnavailable, status)
	require.Equal(t, "not ready: controller: starting\n", body)
}

func TestMetricsOffByDefault(t *testing.T) {
	n := startTestNode(t)
	require.Nil(t, n.ep)
}

func TestMetricsBindFailureNamesAddress(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	port := busy.Addr().(*net.TCPAddr).Port
	cfg := loadTestConfig(t, "127.0.0.1:1", "127.0.0.1:2", "metricsExporterType=PROM",
		"metricsPromExporterHost=127.0.0.1", "metricsPromExporterPort="+strconv.Itoa(port))
	_, err = startNode(cfg, raftstoretest.TestLogger(t, "ctl"), nodeOptions{})
	require.Error(t, err)
	require.Contains(t, err.Error(), busy.Addr().String())
}

// startTestNode starts a one-node controller on loopback listeners with
// the extra properties, and stops it when the test ends.
func startTestNode(t *testing.T, extra ...string) *node {
	t.Helper()
	logger := raftstoretest.TestLogger(t, "ctl")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	tr, err := raftstore.NewTCPTransport("127.0.0.1:0", "", logger)
	require.NoError(t, err)
	cfg := loadTestConfig(t, ln.Addr().String(), string(tr.LocalAddr()), extra...)
	n, err := startNode(cfg, logger, nodeOptions{
		controller: []controller.Option{controller.WithListener(ln), controller.WithRaftTransport(tr)},
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, n.stop(ctx))
	})
	return n
}

func loadTestConfig(t *testing.T, addr, raftAddr string, extra ...string) *config.ControllerConfig {
	t.Helper()
	dir := t.TempDir()
	lines := append([]string{
		"controllerDLegerGroup=group1", "controllerDLegerSelfId=n0",
		"controllerDLegerPeers=n0-" + addr, "controllerRaftPeers=n0-" + raftAddr,
		"controllerStorePath=" + filepath.Join(dir, "store"),
		"configStorePath=" + filepath.Join(dir, "controller.properties"),
	}, extra...)
	path := filepath.Join(dir, "controller.properties")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	cfg, err := config.LoadController(path)
	require.NoError(t, err)
	require.NoError(t, cfg.Validate())
	return cfg
}

// TestBusyPortServesNothing: with the controller's remoting port taken,
// the start fails naming it before the metrics endpoint serves (every
// listener is bound before any serves).
func TestBusyPortServesNothing(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.NoError(t, free.Close())
	cfg := loadTestConfig(t, busy.Addr().String(), free.Addr().String(), "metricsExporterType=PROM",
		"bindAddress=127.0.0.1", "metricsPromExporterHost=127.0.0.1", "metricsPromExporterPort=0")
	var log strings.Builder
	_, err = startNode(cfg, hclog.New(&hclog.LoggerOptions{Output: &log}), nodeOptions{})
	require.ErrorContains(t, err, busy.Addr().String())
	require.NotContains(t, log.String(), "metrics endpoint started")
}
