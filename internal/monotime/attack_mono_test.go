package monotime

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMonoAddSaturates: Mono.Add and Sub wrapped around on
// overflow, so a deadline now.Add(d) with a huge d (a stranger's timeout
// that a future caller forgets to cap) came out before now: an instant
// expiry instead of "never". They saturate: a deadline past the end of
// the clock stays after every reading, one before its start before every
// reading, and Sub of two extreme readings keeps its sign.
func TestMonoAddSaturates(t *testing.T) {
	now := Now()
	far := now.Add(time.Duration(math.MaxInt64))
	require.True(t, now.Before(far), "a huge timeout is not already over")
	require.Equal(t, Mono(math.MaxInt64), far)
	past := now.Add(time.Duration(math.MinInt64))
	require.True(t, past.Before(now), "a huge negative move stays in the past")
	require.Positive(t, far.Sub(past), "the distance keeps its sign")
	require.Negative(t, past.Sub(far))
	require.Positive(t, time.Until(far.Deadline()), "a deadline past the end of the clock is ahead")
	require.Equal(t, now.Add(time.Second), now+Mono(time.Second), "ordinary sums are exact")
}

// TestFakeConcurrentStepsAndAdvances: Advance, StepWall and the
// reads race (-race) and keep their meaning: the monotonic reading moves
// by exactly the time let pass, the wall reading by that plus the steps.
func TestFakeConcurrentStepsAndAdvances(t *testing.T) {
	f := NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w0, m0 := f.Now(), f.Mono()
	var wg sync.WaitGroup
	var back atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := f.Mono()
			for range 1000 {
				f.Advance(time.Millisecond)
				f.StepWall(time.Minute)
				f.StepWall(-time.Minute)
				m := f.Mono()
				if m.Before(last) {
					back.Add(1)
				}
				last = m
				_ = f.Now()
			}
		}()
	}
	wg.Wait()
	require.Zero(t, back.Load(), "monotonic readings never go back")
	require.Equal(t, 4*time.Second, f.Mono().Sub(m0))
	require.Equal(t, 4*time.Second, f.Now().Sub(w0))
}
