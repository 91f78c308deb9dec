//go:build embedded_controller

package sched

import (
	"testing"
	"time"

	"github.com/rmqgo/nameserver/config"
	"github.com/stretchr/testify/require"
)

// TestSchedulerOwnElectionsHaveTheirOwnBound: a full scheduler admits an
// own election, which does not count against the requests' bound, and own
// elections are held to their own bound (the controller's is
// config.MaxControllerBrokerSets: TestOwnElectionBoundIsTheSetBound).
func TestSchedulerOwnElectionsHaveTheirOwnBound(t *testing.T) {
	const maxOwn = 64
	s := New(2, maxOwn, 64<<20)
	release := make(chan struct{})
	defer close(release)
	block := func() { <-release }
	require.NoError(t, s.Submit(SetKeys("a"), block))
	require.NoError(t, s.Submit(SetKeys("b"), block))
	require.ErrorIs(t, s.Submit(SetKeys("c"), block), ErrFull)
	for range maxOwn { // one chain: one goroutine
		require.NoError(t, s.Submit(OwnElectionKeys("o"), block))
	}
	require.ErrorIs(t, s.Submit(OwnElectionKeys("x"), block), ErrFull)
	require.ErrorIs(t, s.Submit(SetKeys("c"), block), ErrFull)
	require.Equal(t, 2+maxOwn, s.Pending())
	s.Stop()
}

// TestSchedulerBytesBudget: a task is admitted while the live tasks'
// weight stays within the budget, a task alone past the budget is
// admitted, and own elections weigh nothing.
func TestSchedulerBytesBudget(t *testing.T) {
	s := newTestScheduler(16)
	defer s.Stop()
	s.budget = 100
	releaseA, releaseB := make(chan struct{}), make(chan struct{})
	defer close(releaseB)
	weighed := func(name string, w int64) Keys { k := SetKeys(name); k.Weight = w; return k }
	require.NoError(t, s.Submit(weighed("a", 60), func() { <-releaseA }))
	require.ErrorIs(t, s.Submit(weighed("b", 41), func() {}), ErrFull, "60+41 is past 100")
	require.NoError(t, s.Submit(weighed("b", 40), func() { <-releaseB }), "60+40 fits")
	own := OwnElectionKeys("o")
	own.Weight = 1 << 40
	require.NoError(t, s.Submit(own, func() {}), "an own election weighs nothing")
	close(releaseA)
	require.Eventually(t, func() bool { return s.Pending() == 1 }, 10*time.Second, time.Millisecond)
	require.ErrorIs(t, s.Submit(weighed("c", 61), func() {}), ErrFull)
	require.NoError(t, s.Submit(weighed("c", 60), func() {}))
	require.Eventually(t, func() bool { return s.Pending() == 1 }, 10*time.Second, time.Millisecond)
	s.mu.Lock()
	require.Equal(t, int64(40), s.bytes, "finished tasks give their weight back")
	s.mu.Unlock()
}

// TestSchedulerLoneHeavyTaskIsAdmitted: a task heavier than the budget is
// admitted when no weighed task is live (so that no request is refused
// forever), and holds every other weighed task out while it lives.
func TestSchedulerLoneHeavyTaskIsAdmitted(t *testing.T) {
	s := newTestScheduler(16)
	defer s.Stop()
	s.budget = 100
	release := make(chan struct{})
	heavy := SetKeys("a")
	heavy.Weight = 1000
	require.NoError(t, s.Submit(heavy, func() { <-release }))
	light := SetKeys("b")
	light.Weight = 1
	require.ErrorIs(t, s.Submit(light, func() {}), ErrFull)
	close(release)
	require.Eventually(t, func() bool { return s.Pending() == 0 }, 10*time.Second, time.Millisecond)
	require.NoError(t, s.Submit(light, func() {}))
}

func TestSchedulerQueueAndStop(t *testing.T) {
	s := newTestScheduler(1)
	held := make(chan struct{})
	require.NoError(t, s.submitGlobal(func() { <-held })) // live until the bound is checked
	require.ErrorIs(t, s.submitGlobal(func() {}), ErrFull)
	close(held)
	s.Stop()
	require.ErrorIs(t, s.submitGlobal(func() {}), ErrStopped)
}

// submitGlobal enqueues fn as a global task (it waits for, and holds back,
// everything but reads): errStopped once stopped, errFull when full.
func (s *Scheduler) submitGlobal(fn func()) error { return s.Submit(GlobalKeys(), fn) }

// newTestScheduler returns a scheduler of size with the controller's
// bounds of own elections and bytes.
func newTestScheduler(size int) *Scheduler {
	return New(size, config.MaxControllerBrokerSets, 64<<20)
}
