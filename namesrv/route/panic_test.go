package route

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
)

// completes runs f on its own goroutine and fails the test unless it
// returns within the deadline (a held coordinator would block it for good).
func completes(t *testing.T, msg string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	poll.Until(t, msg, 5*time.Second, time.Millisecond, poll.True(func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}))
}

// TestPanicInMutationReleasesCoordinator: a registration that panics under
// the coordinator (here: the Settings hook, read under it) must not leave
// it held; the next registration and the expiry scan still complete.
func TestPanicInMutationReleasesCoordinator(t *testing.T) {
	var boom atomic.Bool
	h := newHarness(t, false, func(o *Options) {
		o.Settings = func() Settings {
			if boom.Load() {
				panic("injected mutation panic")
			}
			return Settings{}
		}
	})
	boom.Store(true)
	require.PanicsWithValue(t, "injected mutation panic", func() {
		_, _ = h.RegisterBroker(reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	})
	boom.Store(false)
	completes(t, "a registration after a panicking one never completed", func() {
		mustRegister(t, h, reg("c1", "b1", "a1", 0, body(2, "t1", "t2")))
	})
	require.NotNil(t, h.Lookup("t1"))
	h.Start() // the worker applies the expiry's unregistrations
	h.clock.Advance(DefaultBrokerTimeout + time.Second)
	completes(t, "the expiry scan after a panicking registration never completed", func() {
		h.ScanExpired(h.clock.Mono())
	})
	poll.Until(t, "the expired broker's topic is withdrawn", 5*time.Second, time.Millisecond, poll.True(func() bool { return h.Lookup("t1") == nil }))
}

// TestPanicInMutationPublishesWithNextMutation: what a panicking mutation
// changed before it panicked stays in the tables and is published by the
// next mutation, as Java's RouteInfoManager keeps what ran before a throw.
func TestPanicInMutationPublishesWithNextMutation(t *testing.T) {
	h := newHarness(t, false)
	require.Panics(t, func() {
		h.mutate(func(tx *mutation) {
			tx.joinCluster("c9", "b9")
			panic("after a change")
		})
	})
	completes(t, "a registration after a panicking mutation never completed", func() {
		_, _ = h.RegisterBroker(reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	})
	require.Equal(t, 2, h.Stats().Clusters)
}
