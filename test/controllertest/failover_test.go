//go:build embedded_controller

package controllertest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// Failover targets of the brief: logged by the tests, measured by the
// benchmarks (speed is never asserted in a test).
const (
	targetFailoverOnClose = time.Second
	targetNewLeaderServes = 3 * time.Second
	scanSlack             = 500 * time.Millisecond
)

func TestBrokerScriptAndFailoverOnConnClose(t *testing.T) {
	c := startCluster(t, 3, fastProps)
	p := newPair(t, c.addrs(), 3*time.Second)
	p.requireReplicaInfo()

	// A master that reconnects, then loses its old connections late, stays master.
	leader := c.leader()
	closes, evictions, _ := leader.obs.counts()
	p.master.reconnect()
	require.Eventually(t, func() bool {
		n, _, _ := leader.obs.counts()
		return n > closes
	}, waitLimit, 5*time.Millisecond, "the leader handled the stale connection's close")
	_, after, elections := leader.obs.counts()
	require.Equal(t, evictions, after, "a stale connection close evicts nobody")
	require.NotContains(t, elections, "inactive:0")
	p.requireReplicaInfo()

	d := p.failoverOnClose()
	t.Logf("failover on master connection close: %v (elected and 1008 received; target %v, measured by the benchmarks)", d, targetFailoverOnClose)
	p.requireReplicaInfo()
	require.Contains(t, c.elections(), "inactive:0")

	// The old master comes back as slave of the new one.
	p.rejoin()
	p.requireReplicaInfo()
	requireBothAlive(t, p)
}

func TestFailoverOnHeartbeatLoss(t *testing.T) {
	c := startCluster(t, 3, fastProps)
	const hbTimeout = 1500 * time.Millisecond
	p := newPair(t, c.addrs(), hbTimeout)
	d := p.failoverOnHeartbeatLoss()
	bound := hbTimeout + 300*time.Millisecond + scanSlack // timeout + one scanNotActiveBrokerInterval + 0.5 s
	t.Logf("failover on master heartbeat loss: %v after the last beat (timeout %v, target %v, measured by the benchmarks)", d, hbTimeout, bound)
	require.GreaterOrEqual(t, d, hbTimeout, "not before the heartbeat timed out")
	p.requireReplicaInfo()
	p.rejoin()
	p.requireReplicaInfo()
}

// TestNoCandidateBumpsMasterEpochOnce: the only replica goes; the first
// attempt clears the master (masterEpoch 2), and the retries, finding no
// master to clear, record nothing (Java records one per attempt).
func TestNoCandidateBumpsMasterEpochOnce(t *testing.T) {
	c := startCluster(t, 3, fastProps)
	a := newFakeBroker(t, "DefaultCluster", "broker-solo", c.addrs(), 3*time.Second)
	require.EqualValues(t, 1, a.applyID())
	a.register()
	a.heartbeatSync()
	requireElected(t, a.elect(), "1")
	a.CloseConns() // the only replica is gone: three attempts, one "no master" entry
	require.Eventually(t, func() bool {
		_, _, elections := c.leader().obs.counts()
		return len(elections) > 1 && elections[len(elections)-1] == "inactive:2004"
	}, waitLimit, 5*time.Millisecond)
	resp := a.replicaInfo()
	require.Equal(t, remoting.Success, resp.Code)
	require.Equal(t, map[string]string{"masterEpoch": "2"}, resp.ExtFields, "1 + the one master cleared")
}

// requireBothAlive polls 1006 until both replicas are alive and in sync.
func requireBothAlive(t *testing.T, p *pair) {
	t.Helper()
	require.Eventually(t, func() bool {
		resp := p.master.call(remoting.ControllerGetSyncStateData, nil, []byte(`["broker-a"]`))
		info, err := decodeReplicas(resp.Body)
		if err != nil || resp.Code != remoting.Success {
			return false
		}
		ri := info.ReplicasInfoTable["broker-a"]
		return len(ri.InSyncReplicas) == 2 && ri.InSyncReplicas[0].Alive && ri.InSyncReplicas[1].Alive
	}, waitLimit, 20*time.Millisecond)
}

func TestFollowerAnswersNotLeaderAndBrokerFindsLeader(t *testing.T) {
	c := startCluster(t, 3, nil)
	f := c.follower()
	b := newFakeBroker(t, "DefaultCluster", "broker-b", []string{f.remoting}, 3*time.Second)
	resp, err := b.invoke(f.remoting, remoting.ControllerGetNextBrokerID,
		map[string]string{"clusterName": "DefaultCluster", "brokerName": "broker-b"}, nil)
	require.NoError(t, err)
	require.Equal(t, remoting.ControllerNotLeader, resp.Code)
	require.Equal(t, "The controller is not in leader state", resp.Remark)
	require.Equal(t, c.leader().remoting, b.findLeader(), "1005 on a follower names the leader's remoting address")
	require.EqualValues(t, 1, b.applyID())
}
