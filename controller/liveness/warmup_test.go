//go:build embedded_controller

package liveness

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestViewWarmupIsFixed: a node's table is a complete view of liveness
// once it has served for viewWarmup, whatever timeouts brokers announce
// (a stranger's 60 s, or a huge value capped at it, stretches nothing),
// and serving again (Start) starts the warm-up again.
func TestViewWarmupIsFixed(t *testing.T) {
	e := newHBEnv(t)
	require.False(t, e.m.ViewComplete(), "a node that has just started knows nothing yet")
	require.Equal(t, ViewWarmup, e.m.ViewCompleteIn())

	long := beat(2, "a2", 1, 10)
	long.HeartbeatTimeoutMillis = ptr(int64(60_000))
	require.NoError(t, e.m.OnHeartbeat(long, 2))
	huge := beat(3, "a3", 1, 10)
	huge.HeartbeatTimeoutMillis = ptr(int64(1 << 50))
	require.NoError(t, e.m.OnHeartbeat(huge, 3))

	e.clock.Advance(ViewWarmup - time.Millisecond)
	require.False(t, e.m.ViewComplete())
	require.Equal(t, time.Millisecond, e.m.ViewCompleteIn())
	e.clock.Advance(time.Millisecond)
	require.True(t, e.m.ViewComplete(), "announced timeouts do not stretch the warm-up")
	require.Zero(t, e.m.ViewCompleteIn())

	e.m.StartServing()
	require.False(t, e.m.ViewComplete(), "serving again starts the warm-up again")
}
