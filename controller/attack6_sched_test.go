//go:build embedded_controller

package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fillScheduler submits tasks until the scheduler answers busy: a chain on
// one stranger's set whose head blocks until release is closed (a stranger
// whose requests queue behind slow fsyncs, or whose timed-out tasks still
// wait on the scheduler). It returns how many it submitted.
func fillScheduler(t *testing.T, ctl *Controller, key string, release <-chan struct{}) int {
	t.Helper()
	n := 0
	for ; ; n++ {
		err := ctl.sched.submitOn(setKeys(key), func() { <-release })
		if err != nil {
			require.ErrorIs(t, err, errSystemBusy)
			return n
		}
		require.Less(t, n, 1<<20)
	}
}

// TestAttackFullQueueLocksOutFailover: a stranger keeps the leader's
// scheduler full (1,024 live tasks on a set of its own) while a master's
// connection closes. The controller's own election of that set shares no
// key with the stranger's tasks, but used to be answered "busy" like any
// request: three attempts, then nothing until the T2 scan, which is refused
// the same way; the set stayed without a master for as long as the stranger
// kept the queue full. The controller's own elections are at most one per
// stored set (reelect.go), so they are admitted past the bound.
func TestAttackFullQueueLocksOutFailover(t *testing.T) {
	ic := newInmemControllers(t, 1, "scanInactiveMasterInterval=1000")
	ctl := ic.leader(t)
	fleet := newStormFleet(t, ctl, 2)
	release := make(chan struct{})
	defer close(release)
	n := fillScheduler(t, ctl, "ghost", release)
	t.Logf("stranger's live tasks: %d", n)
	require.Equal(t, schedulerQueueSize, n, "the bound still holds for requests")

	require.NoError(t, fleet.conns["set-000"][0].Close())
	deadline := time.Now().Add(8 * time.Second)
	for ctl.MasterEpochs()["set-000"] != 2 {
		if time.Now().After(deadline) {
			elections, _ := ic.obs[ctl.Node().ID()].snapshot()
			require.FailNow(t, "no failover while the queue is full",
				"master epochs %v, elections (trigger:code) %v", ctl.MasterEpochs(), elections)
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.Equal(t, int32(1), ctl.MasterEpochs()["set-001"], "the live set keeps its master")
	require.ErrorIs(t, ctl.sched.submitOn(setKeys("ghost"), func() {}), errSystemBusy,
		"the stranger is still held at the bound")
}

// TestSchedulerOwnElectionsHaveTheirOwnBound: a full scheduler admits an
// own election, which does not count against the requests' bound, and own
// elections are held to maxOwnElections.
func TestSchedulerOwnElectionsHaveTheirOwnBound(t *testing.T) {
	s := newScheduler(2)
	release := make(chan struct{})
	defer close(release)
	block := func() { <-release }
	require.NoError(t, s.submitOn(setKeys("a"), block))
	require.NoError(t, s.submitOn(setKeys("b"), block))
	require.ErrorIs(t, s.submitOn(setKeys("c"), block), errSystemBusy)
	for range maxOwnElections { // one chain: one goroutine
		require.NoError(t, s.submitOn(ownElectionKeys("o"), block))
	}
	require.ErrorIs(t, s.submitOn(ownElectionKeys("x"), block), errSystemBusy)
	require.ErrorIs(t, s.submitOn(setKeys("c"), block), errSystemBusy)
	require.Equal(t, 2+maxOwnElections, s.pending())
	s.stop()
}
