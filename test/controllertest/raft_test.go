//go:build embedded_controller

package controllertest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// stateView is what brokers and admins read: 1004 (header and body) and
// the 1006 body.
type stateView struct {
	replicaExt  map[string]string
	replicaBody string
	syncData    string
}

func readState(t testing.TB, b *fakeBroker) stateView {
	t.Helper()
	ri := b.replicaInfo()
	require.Equal(t, remoting.Success, ri.Code, ri.Remark)
	sd := b.call(remoting.ControllerGetSyncStateData, nil, []byte(`["broker-a"]`))
	require.Equal(t, remoting.Success, sd.Code, sd.Remark)
	return stateView{replicaExt: ri.ExtFields, replicaBody: string(ri.Body), syncData: string(sd.Body)}
}

// requireState polls until the cluster serves want (liveness in 1006
// needs the brokers' heartbeats to reach a fresh leader first).
func requireState(t testing.TB, b *fakeBroker, want stateView) {
	t.Helper()
	var got stateView
	require.Eventually(t, func() bool {
		got = readState(t, b)
		return got.replicaBody == want.replicaBody && got.syncData == want.syncData &&
			len(got.replicaExt) == len(want.replicaExt) && got.replicaExt["masterEpoch"] == want.replicaExt["masterEpoch"]
	}, waitLimit, 20*time.Millisecond, "state differs: got %+v want %+v", got, want)
	require.Equal(t, want.replicaExt, got.replicaExt)
}

// killLeader stops the ready leader and returns the time until a
// leader-gated request (1004) is answered with code 0 again.
func killLeader(t testing.TB, c *cluster, b *fakeBroker) (*node, time.Duration) {
	t.Helper()
	old := c.leader()
	start := time.Now()
	c.stop(old)
	resp := b.replicaInfo()
	elapsed := time.Since(start)
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	return old, elapsed
}

func TestRaftLeaderDeathAndRestartAll(t *testing.T) {
	c := startCluster(t, 3, fastProps)
	p := newPair(t, c.addrs(), 3*time.Second)
	before := readState(t, p.slave)

	old, d := killLeader(t, c, p.slave)
	t.Logf("controller leader death to a new leader answering 1004: %v (target %v)", d, targetNewLeaderServes)
	requireState(t, p.slave, before)

	// A follower answers 2007 and names the new leader through 1005.
	f := c.follower()
	resp, err := p.slave.invoke(f.remoting, remoting.ControllerGetReplicaInfo, map[string]string{"brokerName": "broker-a"}, nil)
	require.NoError(t, err)
	require.Equal(t, remoting.ControllerNotLeader, resp.Code)
	meta, err := p.slave.invoke(f.remoting, remoting.ControllerGetMetadataInfo, nil, nil)
	require.NoError(t, err)
	require.Equal(t, c.leader().remoting, meta.ExtFields["controllerLeaderAddress"])

	// The old leader rejoins and catches up; a snapshot, then more log.
	c.restart(old)
	leader := c.leader()
	require.Eventually(t, func() bool {
		return old.ctl.Node().Raft().AppliedIndex() >= leader.ctl.Node().Raft().CommitIndex()
	}, waitLimit, 10*time.Millisecond)
	for _, nd := range c.running() {
		require.NoError(t, nd.ctl.Node().Snapshot(), "snapshot on %s", nd.id)
	}
	p.failoverOnClose() // appended after the snapshots
	p.rejoin()
	after := readState(t, p.slave)
	require.NotEqual(t, before.replicaExt, after.replicaExt)

	// All three stop; on restart the state comes back from snapshot + log.
	c.stopAll()
	for _, nd := range c.nodes {
		c.restart(nd)
	}
	requireState(t, p.slave, after)
	for _, nd := range c.running() {
		require.NotEqual(t, "0", nd.ctl.Node().Stats()["last_snapshot_index"], "%s restored a snapshot", nd.id)
	}
	p.requireReplicaInfo()
}
