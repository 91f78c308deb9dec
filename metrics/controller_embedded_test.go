//go:build embedded_controller

package metrics_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/metrics/metricstest"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
	"github.com/rmqgo/nameserver/remoting"
)

// TestControllerMetricsEndToEnd runs a one-node controller with the
// metrics hook, takes a broker through id, register, heartbeat and
// election, and checks the scraped families.
func TestControllerMetricsEndToEnd(t *testing.T) {
	reg := metrics.NewProcessRegistry()
	m := metrics.NewController(reg)
	ctl := startController(t, m, true)
	ep, err := metrics.Listen(metrics.EndpointConfig{Addr: "127.0.0.1:0", Registry: reg})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ep.Shutdown(context.Background())) })

	b := dialBroker(t, ctl.Addr())
	b.electMaster()

	fs := metricstest.Scrape(t, ep.Addr().String())
	const p = "rocketmq_controller_"
	require.Equal(t, 1.0, fs.Sum(p+"raft_state", "state", "Leader"))
	require.GreaterOrEqual(t, fs.Sum(p+"raft_term"), 1.0)
	require.Positive(t, fs.Sum(p+"raft_commit_index"))
	require.Positive(t, fs.Sum(p+"raft_applied_index"))
	require.Equal(t, 1.0, fs.Sum(p+"raft_leader", "leader_id", ctl.Node().ID()))
	require.Equal(t, 1.0, fs.Sum(p+"master_epoch", "broker_set", "broker-a"))
	require.Equal(t, 1.0, fs.Sum(p+"heartbeats_total"))
	require.Equal(t, 1.0, fs.Sum(p+"elections_total", "trigger", "broker", "code", "0"))
	require.Equal(t, 1.0, fs.Sum(p+"leader_ready"))
	require.Equal(t, 1.0, fs.Sum(p+"requests_total", "code", "1002", "response_code", "0"), "via WithMetrics")
	require.Equal(t, 1.0, fs.Sum(p+"request_duration_seconds_count", "code", "904"))
	require.Equal(t, 1.0, fs.Sum(p+"connections"))
}

// TestControllerHeartbeatsCountedThroughObserver: WithMetrics alone counts
// every BROKER_HEARTBEAT through the controller's Observer; ExportMetrics
// only adds the scrape-time source.
func TestControllerHeartbeatsCountedThroughObserver(t *testing.T) {
	reg := metrics.NewProcessRegistry()
	m := metrics.NewController(reg)
	ctl := startController(t, m, false)
	ep, err := metrics.Listen(metrics.EndpointConfig{Addr: "127.0.0.1:0", Registry: reg})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ep.Shutdown(context.Background())) })

	dialBroker(t, ctl.Addr()).electMaster()

	fs := metricstest.Scrape(t, ep.Addr().String())
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_heartbeats_total"))
}

// startController starts a one-node controller with WithMetrics(m) and,
// when export is set, ExportMetrics(m).
func startController(t *testing.T, m *metrics.Controller, export bool) *controller.Controller {
	t.Helper()
	logger := raftstoretest.TestLogger(t, "ctl")
	var fsm *controller.FSM
	cluster := raftstoretest.NewInmemCluster(t, 1, func(string) raft.FSM {
		fsm = controller.NewFSM(logger)
		return fsm
	})
	id := cluster.IDs()[0]
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	cfg := controllerConfig(t, id, id+"-"+ln.Addr().String(), id+"-127.0.0.2:40000")
	ctl, err := controller.New(cfg, logger, controller.WithListener(ln),
		controller.WithRaftNode(cluster.Node(id), fsm), controller.WithMetrics(m))
	require.NoError(t, err)
	require.NoError(t, ctl.Start())
	t.Cleanup(func() { require.NoError(t, ctl.Shutdown(context.Background())) })
	if export {
		ctl.ExportMetrics(m)
	}
	poll.Until(t, "ctl.IsReadyLeader", 10*time.Second, 5*time.Millisecond, poll.True(ctl.IsReadyLeader))
	return ctl
}

func controllerConfig(t *testing.T, self, peers, raftPeers string) *config.ControllerConfig {
	t.Helper()
	dir := t.TempDir()
	lines := []string{
		"controllerDLegerGroup=group1", "controllerDLegerPeers=" + peers,
		"controllerRaftPeers=" + raftPeers, "controllerDLegerSelfId=" + self,
		"controllerStorePath=" + filepath.Join(dir, "store"),
		"configStorePath=" + filepath.Join(dir, "controller.properties"),
	}
	path := filepath.Join(dir, "controller.properties")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	cfg, err := config.LoadController(path)
	require.NoError(t, err)
	return cfg
}

// brokerClient speaks the controller-mode broker's side of the broker flow
// (docs/controller.md section 7) over one connection, kept open so the broker
// stays alive.
type brokerClient struct {
	t *testing.T
	c *remoting.Client
}

func dialBroker(t *testing.T, addr string) brokerClient {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return brokerClient{t: t, c: c}
}

func (b brokerClient) call(code int32, ext map[string]string) *remoting.Command {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := b.c.Invoke(ctx, remoting.NewRequest(code, ext, nil))
	require.NoError(b.t, err)
	require.Equal(b.t, remoting.Success, resp.Code, resp.Remark)
	return resp
}

// electMaster applies an id, registers, heartbeats and elects broker-a.
func (b brokerClient) electMaster() {
	const addr = "127.0.0.1:10911"
	with := func(kv ...string) map[string]string {
		out := map[string]string{"clusterName": "c1", "brokerName": "broker-a"}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	id := b.call(remoting.ControllerGetNextBrokerID, with()).ExtFields["nextBrokerId"]
	b.call(remoting.ControllerApplyBrokerID, with("appliedBrokerId", id,
		"registerCheckCode", addr+";"+strconv.FormatInt(time.Now().UnixMilli(), 10)))
	b.call(remoting.ControllerRegisterBroker, with("brokerId", id, "brokerAddress", addr))
	b.call(remoting.BrokerHeartbeat, with("brokerId", id, "brokerAddr", addr, "epoch", "0",
		"maxOffset", "100", "confirmOffset", "100", "heartbeatTimeoutMills", "10000",
		"electionPriority", "2147483647"))
	b.call(remoting.ControllerElectMaster, with("brokerId", id, "designateElect", "false",
		"invokeTime", strconv.FormatInt(time.Now().UnixMilli(), 10)))
}
