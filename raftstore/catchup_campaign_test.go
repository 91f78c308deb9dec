//go:build embedded_controller

package raftstore

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCatchingUpNodeDoesNotCampaign: a wiped node that joined and holds
// only part of the log when the leader dies must not campaign: a lagging
// peer with a shorter log would elect it, and the entries past its part,
// committed with its lost directory's acknowledgement, would be lost.
// Three nodes; the lagging node misses entries 6-600; the wiped node
// stores the first batch of its catch-up (256 entries) and no more; the
// leader dies. No leader may be elected until the old leader is back,
// and then every entry is there.
func TestCatchingUpNodeDoesNotCampaign(t *testing.T) {
	faults := map[string]*DiskFaults{"n0": {}, "n1": {}, "n2": {}}
	c := newTCPCluster(t, 3, func(cfg *Config) { cfg.DiskFaults = faults[cfg.SelfID] })
	leader := WaitForLeader(t, c.running()...)
	require.Equal(t, int64(5), applyN(t, leader, 5))
	var followers []string
	for _, p := range c.peers {
		eventuallyValue(t, c.fsms[p.ID], 5)
		if p.ID != leader.ID() {
			followers = append(followers, p.ID)
		}
	}
	lagging, wiped, old := followers[0], followers[1], leader.ID()
	c.kill(lagging)
	require.Equal(t, int64(600), applyN(t, leader, 595))
	eventuallyValue(t, c.fsms[wiped], 600)
	c.kill(wiped)
	require.NoError(t, os.RemoveAll(c.dirs[wiped]))

	faults[wiped] = &DiskFaults{}
	faults[wiped].SetDelay(300 * time.Millisecond)
	n := c.open(wiped, nil)
	require.Eventually(t, func() bool { return faults[wiped].Writes() >= 2 }, 20*time.Second, time.Millisecond,
		"the second batch of the catch-up started")
	faults[wiped].Fail() // the second batch, still waiting for the disk, and every later one
	c.kill(old)
	t.Logf("%s holds %d entries of 600 when the leader dies", wiped, n.raft.LastIndex())

	b := c.open(lagging, nil)
	elected := func() bool { // raft keeps naming the dead leader until a timeout
		return n.IsLeader() || b.IsLeader() || b.LeaderID() == wiped || n.LeaderID() == lagging
	}
	require.Eventually(t, func() bool { return n.guard.campaignsRefused.Load() >= 2 || elected() }, 20*time.Second,
		time.Millisecond, "the catching-up node tried to campaign")
	require.False(t, elected(), "a leader was elected with part of the log (%s leads: %v, %s leads: %v)",
		wiped, n.IsLeader(), lagging, b.IsLeader())

	faults[wiped].Heal()
	c.open(old, nil)
	got := applyN(t, waitServing(t, c.running()), 1)
	t.Logf("with the old leader back the next writes made the counter %d (602 if nothing was lost)", got)
	require.Equal(t, int64(602), got)
}
