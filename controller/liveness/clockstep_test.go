//go:build embedded_controller

package liveness

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWallStepKeepsHeartbeatsAndExpiresOnTime steps the wall clock of the
// heartbeat table ±10 min a second after a broker's last beat: it stays
// active and no scan reports it, and, beating no more, it expires once
// its timeout has passed, step or not.
func TestWallStepKeepsHeartbeatsAndExpiresOnTime(t *testing.T) {
	for _, step := range wallSteps {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			e := newHBEnv(t)
			require.NoError(t, e.m.OnHeartbeat(beat(1, "a1", 1, 10), 1)) // 3000 ms timeout
			e.clock.Advance(time.Second)
			e.clock.StepWall(step)
			require.True(t, e.m.IsActive("c", "b", 1), "a wall step of %s made a beating broker inactive", step)
			require.Empty(t, e.m.Scan(), "a wall step of %s expired a beating broker", step)

			e.clock.Advance(2 * time.Second) // 3 s since its last beat, before the step
			require.True(t, e.m.IsActive("c", "b", 1), "still within its timeout")
			require.Empty(t, e.m.Scan())
			e.clock.Advance(time.Millisecond)
			require.False(t, e.m.IsActive("c", "b", 1), "a wall step of %s kept a silent broker alive", step)
			require.Len(t, e.m.Scan(), 1, "a silent broker expires on time after a wall step of %s", step)
		})
	}
}

// TestWallStepKeepsViewWarmup steps the wall clock ±10 min inside a
// node's warm-up: it neither ends early (a new leader would fail over
// masters not heard from yet) nor lasts longer.
func TestWallStepKeepsViewWarmup(t *testing.T) {
	for _, step := range wallSteps {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			e := newHBEnv(t)
			e.clock.Advance(time.Second)
			e.clock.StepWall(step)
			require.False(t, e.m.ViewComplete(), "a wall step of %s ended the warm-up", step)
			e.clock.Advance(ViewWarmup - 2*time.Second)
			require.False(t, e.m.ViewComplete())
			e.clock.Advance(time.Second)
			require.True(t, e.m.ViewComplete(), "a wall step of %s made the warm-up longer", step)
		})
	}
}

func TestHeartbeatScanReportsOneBatch(t *testing.T) {
	var calls [][]Inactive
	clock := newFakeClock()
	m := New(Options{Clock: clock, Logger: testLogger(t),
		OnInactive: func(evs []Inactive) { calls = append(calls, evs) }})
	for i := range 50 {
		req := beat(1, "a", 1, 1)
		req.BrokerName = fmt.Sprintf("s%02d", i)
		require.NoError(t, m.OnHeartbeat(req, ConnID(i+1)))
	}
	clock.Advance(3001 * time.Millisecond)
	require.Len(t, m.Scan(), 50)
	require.Len(t, calls, 1, "one scan, one batch")
	require.Len(t, calls[0], 50)
	require.Empty(t, m.Scan())
	require.Len(t, calls, 1, "an empty scan reports nothing")
}

// wallSteps are the wall-clock steps every clock-step test applies: NTP
// stepping a clock ten minutes either way (a VM resume, a bad RTC).
var wallSteps = []time.Duration{10 * time.Minute, -10 * time.Minute}
