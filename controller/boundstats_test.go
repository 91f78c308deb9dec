//go:build embedded_controller

package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/remoting"
)

// The Raft stats behind the alerting metrics carry the configured bounds
// and count a broker set that has ids but no master yet.
func TestBoundStatsCountSetsWithoutMaster(t *testing.T) {
	c := startRealController(t, testlog.New(t, "ctl"), "controllerMaxBrokerSets=50", "controllerMaxStateBytes=1048576")
	stats := c.RaftStats()
	require.Equal(t, "50", stats["broker_sets_limit"])
	require.Equal(t, "1048576", stats["state_bytes_limit"])
	require.Equal(t, "0", stats["broker_sets_without_master"])

	require.Eventually(t, c.IsReadyLeader, 10*time.Second, 10*time.Millisecond)
	a := dialAttack(t, c.Addr())
	resp := a.call(t, remoting.ControllerApplyBrokerID, applyIDExt("c", "broker-a", "1", "127.0.0.1:10911;1"))
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	require.Equal(t, "1", c.RaftStats()["broker_sets_without_master"])
}
