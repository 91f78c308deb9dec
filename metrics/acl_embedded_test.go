//go:build embedded_controller

package metrics_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/metrics/metricstest"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
	"github.com/rmqgo/nameserver/remoting"
)

// TestControllerACLDenialsCounted: with aclEnable, an unsigned
// UPDATE_CONTROLLER_CONFIG is answered 16 and counted in
// rocketmq_controller_acl_denied_total through WithMetrics.
func TestControllerACLDenialsCounted(t *testing.T) {
	reg := metrics.NewProcessRegistry()
	m := metrics.NewController(reg)
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
	cfg.AclEnable, cfg.AclConfigPath = true, filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(cfg.AclConfigPath, []byte("accounts: []\n"), 0o600))
	ctl, err := controller.New(cfg, logger, controller.WithListener(ln),
		controller.WithRaftNode(cluster.Node(id), fsm), controller.WithMetrics(m))
	require.NoError(t, err)
	require.NoError(t, ctl.Start())
	t.Cleanup(func() { require.NoError(t, ctl.Shutdown(context.Background())) })

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, ctl.Addr(), remoting.ClientOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.UpdateControllerConfig, nil, []byte("enableElectUncleanMaster=true")))
	require.NoError(t, err)
	require.Equal(t, remoting.NoPermission, resp.Code, resp.Remark)

	fs, _ := metricstest.ScrapeHandler(t, reg.Handler(nil))
	require.Equal(t, 1.0, fs.Sum("rocketmq_controller_acl_denied_total", "permission", "admin"))
}
