//go:build embedded_controller

package raftstore

import (
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// slowTimeout keeps a node from campaigning while a test arranges the
// others; fastTimeout lets a node win an election first.
const (
	slowTimeout = 2 * time.Second
	fastTimeout = 50 * time.Millisecond
)

// wipeAfterFirstElection builds the history of the flaky
// TestTLSWipedNodeRejoins: an existing cluster at term 1; n0 (the leader
// L) wins term 2 with n1's (W's) vote and writes index 2 to W, while n2
// (F) is cut off from L and stays at term 1 with only the bootstrap
// entry. Then W is wiped and restarted (with heartbeat timeout hb) where
// F answers its probe and L either cannot be reached (reachL false) or
// answers only once release is called.
func wipeAfterFirstElection(t *testing.T, reachL bool, hb time.Duration) (c *probeCluster, release func()) {
	c = newProbeCluster(t, 3, 20*time.Millisecond)
	c.bootstrapStores()
	c.timeouts["n0"], c.timeouts["n1"], c.timeouts["n2"] = fastTimeout, slowTimeout, slowTimeout
	c.cut("n0", "n2")
	c.start("n0")
	c.start("n1")
	l := WaitForLeader(t, c.nodes["n0"], c.nodes["n1"])
	require.Equal(t, "n0", l.ID())
	require.EqualValues(t, 2, l.raft.CurrentTerm(), "L won term 2")
	require.Eventually(t, func() bool { return c.nodes["n1"].raft.LastIndex() >= 2 }, 10*time.Second, time.Millisecond)
	c.kill("n1")
	c.wipe("n1")
	c.start("n2")
	f := c.nodes["n2"]
	require.EqualValues(t, 1, f.raft.CurrentTerm())
	require.EqualValues(t, 1, f.raft.LastIndex())

	c.timeouts["n1"] = hb
	if reachL {
		_, release = c.start("n1", "n0")
	} else {
		c.cut("n1", "n0")
		_, release = c.start("n1")
	}
	t.Logf("W restarted empty: L answers=%v; F at term %d, last index %d", reachL,
		f.raft.CurrentTerm(), f.raft.LastIndex())
	return c, release
}

// TestWipedNodeRefusesTheTermItMayHaveVotedIn: W, wiped right after it
// elected L in term 2, restarts where L cannot be reached and F (term 1,
// bootstrap entry only) answers. Whatever it decides, it must not grant
// F a vote in term 2: with it F would lead term 2 beside L.
func TestWipedNodeRefusesTheTermItMayHaveVotedIn(t *testing.T) {
	c, _ := wipeAfterFirstElection(t, false, slowTimeout)
	w := c.nodes["n1"]
	require.Eventually(t, func() bool { return w.Bootstrapped() || w.Stats()["vote_guard"] == "catching-up" },
		10*time.Second, time.Millisecond)
	t.Logf("W decided: bootstrapped=%v vote_guard=%s term=%d", w.Bootstrapped(), w.Stats()["vote_guard"],
		w.raft.CurrentTerm())
	require.False(t, c.voteFrom("n1", "n2", 2), "W granted F a vote in term 2, which L won with W's lost vote")
	require.False(t, c.voteFrom("n1", "n2", 1), "a vote in the bootstrap term")
}

// TestWipedNodeNeverMakesTwoLeadersInATerm: the same history, and W and
// F then elect whoever they can: across the whole history (every node's
// every leadership, with its term) no term has two leaders.
func TestWipedNodeNeverMakesTwoLeadersInATerm(t *testing.T) {
	c, _ := wipeAfterFirstElection(t, false, fastTimeout)
	c.nodes["n2"].raft.ReloadConfig(raft.ReloadableConfig{
		HeartbeatTimeout: fastTimeout, ElectionTimeout: fastTimeout,
		TrailingLogs: DefaultTrailingLogs, SnapshotInterval: DefaultSnapshotInterval,
		SnapshotThreshold: DefaultSnapshotThreshold})
	require.Eventually(t, func() bool {
		return c.leaders.conflicted() || c.nodes["n1"].IsLeader() || c.nodes["n2"].IsLeader()
	}, 20*time.Second, time.Millisecond, "W and F elect no leader")
	c.leaders.requireOneLeaderPerTerm(t)
	t.Logf("leaders by term: %v", c.leaders)
}

// TestWipedNodeWaitsForASlowerPeerWithALog (the actual flake): L is
// reachable but answers W's probe after F. W must join, not bootstrap.
func TestWipedNodeWaitsForASlowerPeerWithALog(t *testing.T) {
	c, release := wipeAfterFirstElection(t, true, slowTimeout)
	w := c.nodes["n1"]
	require.Eventually(t, func() bool { return c.trans["n1"].answers("n2") >= 1 }, 10*time.Second, time.Millisecond)
	release()
	require.Eventually(t, func() bool { return w.Stats()["vote_guard"] != "undecided" },
		10*time.Second, time.Millisecond)
	require.False(t, w.Bootstrapped(), "the wiped node bootstrapped again while L held index 2")
	require.Equal(t, "catching-up", w.Stats()["vote_guard"])
}
