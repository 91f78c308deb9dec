package monotime

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFakeStepWallMovesOnlyTheWall(t *testing.T) {
	f := NewFake(time.UnixMilli(1_700_000_000_000))
	w0, m0 := f.Now(), f.Mono()
	require.NotZero(t, m0)
	for _, step := range []time.Duration{10 * time.Minute, -10 * time.Minute} {
		f.StepWall(step)
		require.Equal(t, m0, f.Mono(), "a wall step moves no monotonic reading")
	}
	require.Equal(t, w0, f.Now())
	f.Advance(time.Second)
	require.Equal(t, time.Second, f.Mono().Sub(m0))
	require.Equal(t, time.Second, f.Now().Sub(w0))
}

func TestShiftedStepsTheWallOnly(t *testing.T) {
	var s Shifted
	m0 := s.Mono()
	s.StepWall(-10 * time.Minute)
	require.Less(t, time.Until(s.Now()), -9*time.Minute)
	require.GreaterOrEqual(t, s.Mono(), m0, "monotonic readings never go back")
	dl := s.WallDeadline(s.Now().Add(time.Minute))
	require.InDelta(t, float64(time.Minute), float64(time.Until(dl)), float64(10*time.Second),
		"a wall deadline a minute ahead on the stepped clock is a minute ahead in real time")
	require.Equal(t, int64(5), s.Reads(), "reads are counted (WallDeadline reads once)")
}

func TestMonoIsPositiveAndDeadlineIsAhead(t *testing.T) {
	m := Now()
	require.Positive(t, int64(m))
	require.Positive(t, time.Until(m.Add(time.Hour).Deadline()))
	require.False(t, m.Add(time.Second).Before(m))
	require.True(t, m.Before(m.Add(1)))
}

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
