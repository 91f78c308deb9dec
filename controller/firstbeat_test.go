//go:build embedded_controller

package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFirstBeatWindow(t *testing.T) {
	e := newHBEnv(t)
	require.False(t, e.m.InFirstBeatWindow(), "closed until a leader opens it")

	e.m.OpenFirstBeatWindow() // no entries: the default timeout
	e.clock.Advance(time.Duration(defaultHeartbeatTimeoutMillis-1) * time.Millisecond)
	require.True(t, e.m.InFirstBeatWindow())
	e.clock.Advance(time.Millisecond)
	require.False(t, e.m.InFirstBeatWindow())

	require.NoError(t, e.m.OnHeartbeat(beat(1, "a1", 1, 10), 1)) // 3000 ms timeout
	e.m.OpenFirstBeatWindow()
	e.clock.Advance(2999 * time.Millisecond)
	require.True(t, e.m.InFirstBeatWindow(), "the longest known timeout")
	e.clock.Advance(time.Millisecond)
	require.False(t, e.m.InFirstBeatWindow())
	long := beat(2, "a2", 1, 10)
	long.HeartbeatTimeoutMillis = ptr(int64(20_000))
	require.NoError(t, e.m.OnHeartbeat(long, 2))
	require.False(t, e.m.InFirstBeatWindow(), "once passed it stays closed")

	huge := beat(3, "a3", 1, 10)
	huge.HeartbeatTimeoutMillis = ptr(int64(1 << 50))
	require.NoError(t, e.m.OnHeartbeat(huge, 3))
	e.m.OpenFirstBeatWindow()
	e.clock.Advance(time.Duration(maxFirstBeatWindow) * time.Millisecond)
	require.False(t, e.m.InFirstBeatWindow(), "capped")
}
