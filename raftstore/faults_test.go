//go:build embedded_controller

package raftstore

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// storeAsync runs one StoreLog on the faulty store and reports its error.
func storeAsync(s raft.LogStore, index uint64) <-chan error {
	done := make(chan error, 1)
	go func() { done <- s.StoreLog(&raft.Log{Index: index, Term: 1, Data: []byte("x")}) }()
	return done
}

func TestDiskFaultsPauseResumeAndFail(t *testing.T) {
	var f DiskFaults
	mem := raft.NewInmemStore()
	s := f.wrap(mem)
	require.NoError(t, <-storeAsync(s, 1), "no fault: the write goes through")

	f.Pause()
	done := storeAsync(s, 2)
	require.Eventually(t, func() bool { return f.Writes() == 2 }, 5*time.Second, time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("a paused write finished: %v", err)
	default:
	}
	last, err := mem.LastIndex()
	require.NoError(t, err)
	require.EqualValues(t, 1, last, "nothing written while paused")
	f.Resume()
	require.NoError(t, <-done)

	f.Pause()
	done = storeAsync(s, 3)
	require.Eventually(t, func() bool { return f.Writes() == 3 }, 5*time.Second, time.Millisecond)
	f.Fail()
	require.ErrorIs(t, <-done, ErrDiskFault)
	last, err = mem.LastIndex()
	require.NoError(t, err)
	require.EqualValues(t, 2, last, "a failed write writes nothing")
	f.Heal()
	require.NoError(t, <-storeAsync(s, 3))
}

func TestDiskFaultsDelayIsRetimedOnHeal(t *testing.T) {
	var f DiskFaults
	s := f.wrap(raft.NewInmemStore())
	f.SetDelay(time.Hour)
	done := storeAsync(s, 1)
	require.Eventually(t, func() bool { return f.Writes() == 1 }, 5*time.Second, time.Millisecond)
	f.Heal()
	require.NoError(t, <-done, "healing releases a write waiting on its delay")
	require.Nil(t, (*DiskFaults)(nil).wrap(nil), "no faults: the store is not wrapped")
}

// TestDiskFaultsHoldCommitsWhileTheLeaderKeepsItsLease is what the
// Controller's fault tests build on: with both followers' log writes
// paused, an Apply times out with its entry in flight while the leader
// stays leader; once the disks recover the entry commits. A node whose
// writes are paused can still be closed after Fail.
func TestDiskFaultsHoldCommitsWhileTheLeaderKeepsItsLease(t *testing.T) {
	disks := map[string]*DiskFaults{"n0": {}, "n1": {}, "n2": {}}
	c := newTCPCluster(t, 3, func(cfg *Config) { cfg.DiskFaults = disks[cfg.SelfID] })
	t.Cleanup(func() {
		for _, d := range disks {
			d.Heal()
		}
	})
	leader := WaitForLeader(t, c.running()...)
	require.Equal(t, int64(1), applyN(t, leader, 1))
	var followers []string
	for id, n := range c.nodes {
		if n != leader {
			followers = append(followers, id)
			disks[id].Pause()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := leader.Apply(ctx, []byte("1"))
	require.ErrorIs(t, err, ErrTimeout, "no quorum wrote the entry")
	t.Logf("leader after the timeout: %v (heartbeats do not touch the followers' logs)", leader.IsLeader())
	require.EqualValues(t, 1, c.fsms[leader.ID()].Value())

	disks[followers[0]].Resume()
	eventuallyValue(t, c.fsms[leader.ID()], 2)
	disks[followers[1]].Fail()
	c.kill(followers[1])
}
