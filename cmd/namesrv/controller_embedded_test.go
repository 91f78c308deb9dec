//go:build embedded_controller

package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/metrics/metricstest"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
	"github.com/rmqgo/nameserver/remoting"
)

// TestEmbeddedControllerMetricsOnOnePort runs the NameServer with the
// embedded controller as main does and scrapes both servers' families
// from the NameServer's single metrics endpoint.
func TestEmbeddedControllerMetricsOnOnePort(t *testing.T) {
	logger := raftstoretest.TestLogger(t, "namesrv")
	ctlLn := listen(t)
	tr, err := raftstore.NewTCPTransport("127.0.0.1:0", "", logger)
	require.NoError(t, err)
	cfg := embeddedConfig(t, ctlLn.Addr().String(), string(tr.LocalAddr()))

	srv, err := namesrv.New(cfg, logger, namesrv.WithMetricsListener(listen(t)))
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Shutdown(context.Background())) })
	stop, err := runController(cfg, srv, logger, controller.WithListener(ctlLn), controller.WithRaftTransport(tr))
	require.NoError(t, err)
	t.Cleanup(stop)

	calls := waitLeader(t, ctlLn.Addr().String())
	// The leader serves only after its Barrier: wait for that, by polling.
	poll.Until(t, `metricstest.Scrape(t, srv.MetricsAddr().String()).Sum("rocketmq_controller_leader_ready") == 1`, 10*time.Second, 10*time.Millisecond, poll.True(func() bool {
		return metricstest.Scrape(t, srv.MetricsAddr().String()).Sum("rocketmq_controller_leader_ready") == 1
	}))
	resp := invoke(t, srv.Addr().String(), remoting.GetBrokerClusterInfo)
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)

	fs := metricstest.Scrape(t, srv.MetricsAddr().String())
	require.Equal(t, 1.0, fs.Sum("rocketmq_namesrv_requests_total", "code", "106", "response_code", "0"))
	require.Equal(t, 1.0, fs.Sum("rocketmq_namesrv_ready"))
	require.Equal(t, float64(calls), fs.Sum("rocketmq_controller_requests_total", "code", "1005", "response_code", "0"))
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_raft_state", "state", "Leader"))
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_raft_leader", "leader_id", "n0"))
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_leader_ready"))
	require.True(t, fs.Has("go_goroutines"))
	require.True(t, fs.Has("go_gc_duration_seconds_count"))
}

// TestEmbeddedControllerWithoutMetrics starts the controller when the
// NameServer has no registry (metricsExporterType is not PROM).
func TestEmbeddedControllerWithoutMetrics(t *testing.T) {
	logger := raftstoretest.TestLogger(t, "namesrv")
	ctlLn := listen(t)
	tr, err := raftstore.NewTCPTransport("127.0.0.1:0", "", logger)
	require.NoError(t, err)
	cfg := embeddedConfig(t, ctlLn.Addr().String(), string(tr.LocalAddr()))
	cfg.MetricsExporterType = "DISABLE"
	srv, err := namesrv.New(cfg, logger)
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Shutdown(context.Background())) })
	stop, err := runController(cfg, srv, logger, controller.WithListener(ctlLn), controller.WithRaftTransport(tr))
	require.NoError(t, err)
	t.Cleanup(stop)
	require.Nil(t, srv.MetricsAddr())
	waitLeader(t, ctlLn.Addr().String())
}

// embeddedConfig loads a -c file enabling the one-node embedded
// controller and Prometheus metrics, everything on loopback.
func embeddedConfig(t *testing.T, ctlAddr, raftAddr string) *config.NamesrvConfig {
	t.Helper()
	dir := t.TempDir()
	lines := []string{
		"bindAddress=127.0.0.1", "listenPort=0", "enableControllerInNamesrv=true",
		"metricsExporterType=PROM", "metricsPromExporterPort=5557",
		"kvConfigPath=" + filepath.Join(dir, "kvConfig.json"),
		"controllerDLegerGroup=group1", "controllerDLegerSelfId=n0",
		"controllerDLegerPeers=n0-" + ctlAddr, "controllerRaftPeers=n0-" + raftAddr,
		"controllerStorePath=" + filepath.Join(dir, "store"),
	}
	path := filepath.Join(dir, "namesrv.properties")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	cfg, err := config.Load(path)
	require.NoError(t, err)
	return cfg
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return ln
}

// waitLeader asks the controller for its metadata (1005) until it says it
// leads, and returns how many times it asked.
func waitLeader(t *testing.T, addr string) int {
	t.Helper()
	calls := 0
	poll.Until(t, "the controller to say it leads", 15*time.Second, 10*time.Millisecond, poll.True(func() bool {
		calls++
		return invokeQuiet(addr, remoting.ControllerGetMetadataInfo)["isLeader"] == "true"
	}))
	return calls
}

// invokeQuiet sends one request without failing the test (it runs as a
// poll check); it returns the response's ext fields, nil on error.
func invokeQuiet(addr string, code int32) map[string]string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
	if err != nil {
		return nil
	}
	defer c.Close()
	resp, err := c.Invoke(ctx, remoting.NewRequest(code, nil, nil))
	if err != nil || resp.Code != remoting.Success {
		return nil
	}
	return resp.ExtFields
}

func invoke(t *testing.T, addr string, code int32) *remoting.Command {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
	require.NoError(t, err)
	defer c.Close()
	resp, err := c.Invoke(ctx, remoting.NewRequest(code, nil, nil))
	require.NoError(t, err)
	return resp
}
