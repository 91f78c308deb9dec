//go:build embedded_controller

package raftstore

import (
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// attackFloor is a vote floor far above the terms a test cluster reaches.
const attackFloor = 200

// TestFloorAboveRaftTermStillElects: a node whose persisted vote
// floor is above raft's term (it stopped after bootstrap recorded the
// floor and before adoptTerm raised the term; or it joined after an
// ErrCantBootstrap with the silent-peer margin and was then caught up
// by a leader in a lower term) must not keep the cluster from electing.
// Pre-votes do not raise raft's term, so without help neither it (its
// own pre-votes are at most its floor) nor a peer whose pre-votes it
// refuses with its low term would ever campaign above the floor. With
// n2 down, n0 needs n1's vote.
func TestFloorAboveRaftTermStillElects(t *testing.T) {
	c := newProbeCluster(t, 3, 20*time.Millisecond)
	c.bootstrapStores()
	require.NoError(t, c.stores["n1"].SetUint64(keyGuardMode, modeVoting))
	require.NoError(t, c.stores["n1"].SetUint64(keyVoteFloor, attackFloor))
	c.start("n0")
	c.start("n1")
	var leader *Node
	require.Eventually(t, func() bool {
		leader = c.leaderOf()
		return leader != nil
	}, 20*time.Second, 20*time.Millisecond, "no leader: the floor above raft's term blocks every election")
	t.Logf("leader %s in term %d", leader.ID(), leader.raft.CurrentTerm())
	require.Greater(t, leader.raft.CurrentTerm(), uint64(attackFloor), "elected above the floor")
	require.Equal(t, int64(1), applyN(t, leader, 1))
	c.leaders.requireOneLeaderPerTerm(t)
}

// leaderOf returns the running node that is raft leader, or nil.
func (c *probeCluster) leaderOf() *Node {
	for _, n := range c.running() {
		if n.IsLeader() {
			return n
		}
	}
	return nil
}

// TestLeadershipTransferToANodeUnderItsFloor: a leader hands its
// leadership (TimeoutNow, no pre-vote) to a node whose floor is above
// the cluster's term. The node must not win a term up to its floor, and
// the cluster must elect again.
func TestLeadershipTransferToANodeUnderItsFloor(t *testing.T) {
	c := newProbeCluster(t, 3, 20*time.Millisecond)
	c.bootstrapStores()
	require.NoError(t, c.stores["n1"].SetUint64(keyVoteFloor, attackFloor))
	c.timeouts["n1"] = 10 * inmemHeartbeat // n0 or n2 lead first, below the floor
	for _, id := range []string{"n0", "n1", "n2"} {
		c.start(id)
	}
	var leader *Node
	require.Eventually(t, func() bool {
		leader = c.leaderOf()
		return leader != nil
	}, 20*time.Second, 20*time.Millisecond, "no first leader")
	t.Logf("first leader %s in term %d", leader.ID(), leader.raft.CurrentTerm())
	first := leader.raft.CurrentTerm()
	if leader.ID() != "n1" {
		err := leader.raft.LeadershipTransferToServer("n1", "n1").Error()
		t.Logf("transfer to n1: %v", err)
	}
	require.Eventually(t, func() bool {
		leader = c.leaderOf()
		return leader != nil && leader.raft.CurrentTerm() > first
	}, 20*time.Second, 20*time.Millisecond, "no leader after the transfer")
	t.Logf("leader %s in term %d", leader.ID(), leader.raft.CurrentTerm())
	require.Equal(t, int64(1), applyN(t, leader, 1))
	c.leaders.requireOneLeaderPerTerm(t)
	c.leaders.mu.Lock()
	defer c.leaders.mu.Unlock()
	for term, id := range c.leaders.byTerm {
		require.False(t, id == "n1" && term <= attackFloor, "n1 led term %d, up to its floor", term)
	}
}

// TestFloorRefusalDoesNotBlockShutdown: raft's shutdown waits for
// its own goroutines (the ones sending (pre-)votes among them) before it
// closes the transport, which stops the guard. A (pre-)vote refused for
// the floor once raft's main loop has exited must therefore return at
// once, not wait for raft to take the term it is handed.
func TestFloorRefusalDoesNotBlockShutdown(t *testing.T) {
	c := newProbeCluster(t, 3, 20*time.Millisecond)
	c.bootstrapStores()
	require.NoError(t, c.stores["n1"].SetUint64(keyVoteFloor, attackFloor))
	c.timeouts["n1"] = time.Hour // n1's raft never campaigns itself
	n, _ := c.start("n1")
	t.Cleanup(func() { _ = n.guard.Close() }) // a second raft.Shutdown does not close it
	n.raft.Shutdown()                         // the main loop exits; the transport stays open until Error
	returned := make(chan error, 1)
	go func() {
		pre := &raft.RequestPreVoteRequest{RPCHeader: n.guard.header(), Term: 2}
		returned <- n.guard.RequestPreVote("n0", "n0", pre, &raft.RequestPreVoteResponse{})
	}()
	select {
	case err := <-returned:
		require.ErrorIs(t, err, ErrVoteFloor)
	case <-time.After(10 * time.Second):
		t.Fatal("a refused pre-vote blocked after raft's main loop exited: raft's shutdown would wait for it forever")
	}
}

// TestCatchingUpNodeReportsItsFloor: n0 and n2 form a cluster (n1
// down) and elect in term T; n2 is wiped and rejoins (catching up, floor
// T, as join records it) but the leader is wiped too before it caught n2
// up, and n1 starts. Two of three lost their state (beyond what the
// probe can save), but n2 still knows that term T had a leader: the new
// cluster must not elect in a term up to T again. n2's probe answer has
// to carry its floor, not raft's term 0.
func TestCatchingUpNodeReportsItsFloor(t *testing.T) {
	c := newProbeCluster(t, 3, 20*time.Millisecond)
	c.start("n0")
	c.start("n2")
	first := WaitForLeader(t, c.running()...)
	term, last := first.raft.CurrentTerm(), first.raft.LastIndex()
	t.Logf("first leader %s in term %d, last index %d", first.ID(), term, last)
	for _, id := range []string{"n0", "n2"} {
		c.kill(id)
		c.wipe(id)
	}
	follower := map[string]string{"n0": "n2", "n2": "n0"}[first.ID()]
	for k, v := range map[string]uint64{string(keyGuardMode): modeCatchingUp,
		string(keyGuardTarget): last, string(keyVoteFloor): term} {
		require.NoError(t, c.stores[follower].SetUint64([]byte(k), v))
	}
	c.start(follower)
	c.start(first.ID())
	c.start("n1")
	var leader *Node
	require.Eventually(t, func() bool {
		leader = c.leaderOf()
		return leader != nil
	}, 20*time.Second, 20*time.Millisecond, "no leader after the wipes")
	t.Logf("leader %s in term %d", leader.ID(), leader.raft.CurrentTerm())
	c.leaders.requireOneLeaderPerTerm(t)
	require.Greater(t, leader.raft.CurrentTerm(), term, "elected again in a term up to the one a node knew had a leader")
}
