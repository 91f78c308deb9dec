//go:build embedded_controller

package raftstore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func counterOf(c *TestCluster, id string) *counterFSM { return c.FSM(id).(*counterFSM) }

func TestInmemClusterPartitionAndHeal(t *testing.T) {
	c := NewInmemCluster(t, 3, newCounter)
	old := c.Leader(t)
	require.Equal(t, int64(3), applyN(t, old, 3))
	require.Len(t, c.Followers(t), 2)

	c.Partition(old.ID())
	leader := c.Leader(t)
	require.NotEqual(t, old.ID(), leader.ID())
	require.Equal(t, int64(4), applyN(t, leader, 1))
	_, err := old.Apply(context.Background(), []byte("1"))
	require.ErrorIs(t, err, ErrNotLeader, "an isolated old leader cannot commit")
	require.Equal(t, int64(3), counterOf(c, old.ID()).Value())

	c.Heal()
	leader = c.Leader(t)
	require.Equal(t, int64(5), applyN(t, leader, 1))
	for _, id := range c.IDs() {
		eventuallyValue(t, counterOf(c, id), 5)
	}
}

func TestInmemClusterKillAndRestart(t *testing.T) {
	c := NewInmemCluster(t, 3, newCounter, func(cfg *Config) {
		cfg.SnapshotThreshold, cfg.TrailingLogs = 8, 2
		cfg.SnapshotInterval = 20 * time.Millisecond
	})
	victim := c.Followers(t)[0].ID()
	c.Kill(t, victim)
	require.Nil(t, c.Node(victim))
	leader := c.Leader(t)
	require.Equal(t, int64(20), applyN(t, leader, 20))
	require.NoError(t, leader.Snapshot())

	n := c.Restart(t, victim)
	require.False(t, n.Bootstrapped())
	eventuallyValue(t, counterOf(c, victim), 20)
	require.Equal(t, 1, counterOf(c, victim).Restores(), "caught up by InstallSnapshot")
	require.Equal(t, int64(21), applyN(t, c.Leader(t), 1))
	eventuallyValue(t, counterOf(c, victim), 21)
}

func TestInmemClusterLeaderKilled(t *testing.T) {
	c := NewInmemCluster(t, 3, newCounter)
	old := c.Leader(t)
	c.Kill(t, old.ID())
	leader := c.Leader(t)
	require.NotEqual(t, old.ID(), leader.ID())
	require.Equal(t, int64(1), applyN(t, leader, 1))
	stats := leader.Stats()
	require.Equal(t, "Leader", stats["state"])
	require.NotEmpty(t, stats["commit_index"])
}

func TestLeaderChSignalsLeadership(t *testing.T) {
	c := NewInmemCluster(t, 1, newCounter)
	n := c.Node("n0")
	select {
	case became := <-n.LeaderCh():
		require.True(t, became)
	case <-time.After(5 * time.Second):
		t.Fatal("no leadership signal")
	}
	require.Equal(t, "n0", n.LeaderID())
	require.NoError(t, n.Barrier(context.Background()))
}

func TestApplyWait(t *testing.T) {
	c := NewInmemCluster(t, 3, newCounter)
	leader := c.Leader(t)
	resp, err := leader.ApplyWait(context.Background(), []byte("2"), time.Second)
	require.NoError(t, err)
	require.Equal(t, int64(2), resp)
	_, err = leader.ApplyWait(context.Background(), []byte("x"), time.Second)
	require.Error(t, err, "an FSM error response is returned as the error")
	for _, f := range c.Followers(t) {
		_, err = f.ApplyWait(context.Background(), []byte("1"), time.Second)
		require.ErrorIs(t, err, ErrNotLeader)
	}
}
