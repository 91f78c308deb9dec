//go:build embedded_controller

package controllertest

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// firstBeatProps scan for inactive masters often, so that a new leader
// acting before the master's heartbeat arrived would do so at once.
var firstBeatProps = []string{"scanNotActiveBrokerInterval=300", "scanInactiveMasterInterval=200"}

// firstBeatTimeout is the brokers' heartbeat timeout in these tests.
const firstBeatTimeout = 3 * time.Second

// targetedBeats sends a broker's 904 every heartbeatInterval to the
// controllers named in targets only (a broker that reaches some of them).
type targetedBeats struct {
	b       *fakeBroker
	mu      sync.Mutex
	targets []string
	stop    chan struct{}
	done    chan struct{}
}

func startTargetedBeats(t *testing.T, b *fakeBroker, targets ...string) *targetedBeats {
	tb := &targetedBeats{b: b, targets: targets, stop: make(chan struct{}), done: make(chan struct{})}
	tb.beat() // recorded before the first election
	go tb.loop()
	t.Cleanup(func() { close(tb.stop); <-tb.done })
	return tb
}

func (tb *targetedBeats) set(targets ...string) {
	tb.mu.Lock()
	tb.targets = targets
	tb.mu.Unlock()
}

func (tb *targetedBeats) loop() {
	defer close(tb.done)
	tick := time.NewTicker(heartbeatInterval)
	defer tick.Stop()
	for {
		select {
		case <-tb.stop:
			return
		case <-tick.C:
			tb.beat()
		}
	}
}

// beat sends one 904 to each target (header as BrokerHeartbeatRequestHeader).
func (tb *targetedBeats) beat() {
	tb.mu.Lock()
	targets := append([]string(nil), tb.targets...)
	tb.mu.Unlock()
	ext := map[string]string{"clusterName": tb.b.Cluster(), "brokerAddr": tb.b.addr, "brokerName": tb.b.Name(),
		"brokerId": tb.b.ident(), "epoch": "1", "maxOffset": "100", "confirmOffset": "100",
		"heartbeatTimeoutMills": strconv.FormatInt(firstBeatTimeout.Milliseconds(), 10),
		"electionPriority":      "2147483647"}
	for _, addr := range targets {
		ctx, cancel := context.WithTimeout(context.Background(), heartbeatInterval)
		_, _ = tb.b.Invoke(ctx, addr, remoting.BrokerHeartbeat, ext, nil)
		cancel()
	}
}

// splitPair is broker-a with master 1 beating only to the leader and slave
// 2 beating to every controller, both in the sync-state set.
func splitPair(t *testing.T, c *cluster) (leader *node, master *targetedBeats, slave *fakeBroker) {
	leader = c.leader()
	a := newFakeBroker(t, "DefaultCluster", "broker-a", c.addrs(), firstBeatTimeout)
	b := newFakeBroker(t, "DefaultCluster", "broker-a", c.addrs(), firstBeatTimeout)
	require.EqualValues(t, 1, a.applyID())
	require.EqualValues(t, 2, b.applyID())
	a.register()
	b.register()
	master = startTargetedBeats(t, a, leader.remoting)
	b.heartbeatSync()
	requireElected(t, a.elect(), "1")
	resp := a.alter(1, 1, 1, 2)
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	b.StartHeartbeats(heartbeatInterval)
	return leader, master, b
}

// restartFollowers stops and starts every follower of leader, one at a
// time (the group keeps its majority): they have just started, so a
// broker absent from their heartbeat tables proves nothing yet.
func restartFollowers(c *cluster, leader *node) {
	for _, nd := range c.running() {
		if nd != leader {
			c.stop(nd)
			c.restart(nd)
		}
	}
	require.Equal(c.t, leader, c.leader(), "the leader kept its leadership")
}

// TestJustStartedLeaderWaitsForFirstHeartbeats: heartbeats are not
// replicated, and a node that has just started has not heard every broker
// yet. A new leader that has just started must not fail over a master
// that beat only to the old leader before the master's heartbeat had a
// chance to arrive (its warm-up, one heartbeat timeout).
func TestJustStartedLeaderWaitsForFirstHeartbeats(t *testing.T) {
	c := startCluster(t, 3, firstBeatProps)
	old, master, slave := splitPair(t, c)
	restartFollowers(c, old)
	c.stop(old)
	leader := c.leader()
	readyAt := time.Now()
	t.Logf("new leader %s ready; the master beats to it after %v", leader.id, firstBeatTimeout/3)
	time.Sleep(firstBeatTimeout / 3) // the master finds the new leader late (stimulus, not an assertion)
	master.set(c.addrs()...)

	settled := 10*time.Second + 5*200*time.Millisecond // the warm-up, then five scans
	require.Eventually(t, func() bool {
		_, _, elections := leader.obs.counts()
		return len(elections) > 0 || time.Since(readyAt) > settled
	}, waitLimit, 20*time.Millisecond)
	_, _, elections := leader.obs.counts()
	require.Empty(t, elections, "the new leader failed over a master whose heartbeat was on its way")
	resp := slave.replicaInfo()
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	require.Equal(t, "1", resp.ExtFields["masterBrokerId"])
	require.Equal(t, "1", resp.ExtFields["masterEpoch"])
}

// TestNewLeaderFailsOverSilentMasterAfterWarmup: a master that never beats
// to the new leader is failed over once the new leader has served for its
// warm-up (at once if it had already).
func TestNewLeaderFailsOverSilentMasterAfterWarmup(t *testing.T) {
	c := startCluster(t, 3, firstBeatProps)
	old, _, slave := splitPair(t, c)
	c.stop(old)
	c.leader()
	readyAt := time.Now()
	n, err := slave.waitNotice(2)
	require.NoError(t, err)
	require.Equal(t, slave.ident(), n.Req.ExtFields["masterBrokerId"])
	t.Logf("silent master failed over %v after the new leader was ready", n.At.Sub(readyAt))
}
