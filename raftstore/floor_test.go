//go:build embedded_controller

package raftstore

import (
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// TestBootstrapWithASilentPeerAdoptsTheVoteFloor: two of three empty
// nodes form a cluster (n2 down): each waited for n2, bootstrapped with
// a floor at least silentTermMargin, adopted it as its term, refuses to
// send or grant votes up to it, and the leader's term is above it.
func TestBootstrapWithASilentPeerAdoptsTheVoteFloor(t *testing.T) {
	c := newProbeCluster(t, 3, 20*time.Millisecond)
	c.start("n0")
	c.start("n1")
	leader := WaitForLeader(t, c.running()...)
	for _, n := range c.running() {
		require.True(t, n.Bootstrapped())
		n.guard.mu.Lock()
		floor := n.guard.floor
		n.guard.mu.Unlock()
		t.Logf("%s: vote floor %d, term %d", n.ID(), floor, n.raft.CurrentTerm())
		require.GreaterOrEqual(t, floor, uint64(silentTermMargin))
		require.Greater(t, leader.raft.CurrentTerm(), floor, "elected above every floor")
		req := &raft.RequestVoteRequest{RPCHeader: n.guard.header(), Term: floor}
		err := n.guard.RequestVote("n2", "n2", req, &raft.RequestVoteResponse{})
		require.ErrorIs(t, err, ErrVoteFloor, "a vote request sent in a term up to the floor")
		pre := &raft.RequestPreVoteRequest{RPCHeader: n.guard.header(), Term: floor}
		err = n.guard.RequestPreVote("n2", "n2", pre, &raft.RequestPreVoteResponse{})
		require.ErrorIs(t, err, ErrVoteFloor, "a pre-vote request sent in a term up to the floor")
	}
	require.Equal(t, int64(1), applyN(t, leader, 1))
	c.leaders.requireOneLeaderPerTerm(t)
}
