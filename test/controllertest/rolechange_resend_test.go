//go:build embedded_controller

package controllertest

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// TestNewLeaderResendsLostRoleChange: three namesrv processes; the
// leader's 1008s are turned off on it alone (1009 is per node), so that
// its election of a set's slave, after the master's connections closed,
// tells nobody, as when it dies right after the election. Its process is
// then killed: the new leader sends the slave its role by 1008 once it is
// ready, within notice wait; without that, the slave would learn it only
// from its 1004 poll, which a Java broker sends every 5 s to the leader
// address it refreshes every 10 s (docs/controller.md section 3.5).
func TestNewLeaderResendsLostRoleChange(t *testing.T) {
	ec := startEmbeddedCluster(t, correlatedProps...)
	sets := newFleet(t, ec.addrs, 1, 10*time.Second)
	setupStormFleet(t, sets)
	s := sets[0]
	s.failed = true
	admin := newSetClient(t, newHistory(), 0, ec.addrs, "storm-admin", 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	leader, _ := admin.b.FindLeader(ctx)
	require.Contains(t, ec.procs, leader, "a leader is named")
	resp, err := admin.b.Invoke(ctx, leader, remoting.UpdateControllerConfig, nil, []byte("notifyBrokerRoleChanged=false\n"))
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)

	failMasters(sets)
	require.True(t, pollUntil(waitLimit, 50*time.Millisecond, func() bool {
		r := s.slave().replicaInfo()
		return succeeded(r) && r.out.master == s.slave().ids
	}), "the leader elected the slave")
	require.Empty(t, s.slave().b.Notices()[s.notices[1]:], "the leader sent no 1008")
	start := time.Now()
	ec.procs[leader].signal(syscall.SIGKILL)

	wait, stop := context.WithTimeout(context.Background(), correlatedNoticeWait)
	defer stop()
	nt, err := s.slave().b.WaitNotice(wait, s.epoch+1)
	require.NoError(t, err, "the new master was not told its role by 1008")
	require.Equal(t, s.slave().b.Addr(), nt.Req.ExtFields["masterAddress"])
	t.Logf("leader killed right after its election: the new master told by the new leader %v later",
		nt.At.Sub(start).Round(time.Millisecond))
	final := awaitFleetSettled(t, admin, sets)
	requireSafe(t, verifyFleet(t, sets, final))
}
