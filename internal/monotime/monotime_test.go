package monotime

import (
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
