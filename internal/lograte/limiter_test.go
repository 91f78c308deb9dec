package lograte

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLimiterOnePerIntervalCountsTheRest(t *testing.T) {
	l := &Limiter{Every: time.Second}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ok, n := l.Allow(t0)
	require.True(t, ok)
	require.Zero(t, n)
	for range 5 {
		ok, _ = l.Allow(t0.Add(500 * time.Millisecond))
		require.False(t, ok)
	}
	ok, n = l.Allow(t0.Add(time.Second))
	require.True(t, ok)
	require.Equal(t, 5, n)
	ok, _ = (&Limiter{}).Allow(t0)
	require.True(t, ok, "the zero value lets everything through")
}

func TestLimiterBurstPerWindow(t *testing.T) {
	l := &Limiter{Every: time.Second, Burst: 3}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	allowed := 0
	for i := range 10 {
		if ok, _ := l.Allow(t0.Add(time.Duration(i) * time.Millisecond)); ok {
			allowed++
		}
	}
	require.Equal(t, 3, allowed)
	ok, n := l.Allow(t0.Add(time.Second))
	require.True(t, ok, "a new window")
	require.Equal(t, 7, n)
}
