package route

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// scanNow runs an expiry scan at the harness clock's present.
func (h *harness) scanNow() int { return h.ScanExpired(h.clock.Mono()) }

// TestWallStepExpiresNoBrokerAndADeadOneOnTime steps the wall clock ±10
// min a second after a broker registered: the scan expires no broker and
// its routes stay; beating no more, it expires once its timeout (120 s)
// has passed, step or not.
func TestWallStepExpiresNoBrokerAndADeadOneOnTime(t *testing.T) {
	for _, step := range []time.Duration{10 * time.Minute, -10 * time.Minute} {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			h := newHarness(t, true)
			ch := newChan("c")
			r := reg("c1", "b1", "a1", 0, body(1, "t1", "t2"))
			r.Channel = ch
			mustRegister(t, h, r)
			h.clock.Advance(time.Second)
			h.clock.StepWall(step)
			require.Zero(t, h.scanNow(), "a wall step of %s expired a live broker", step)
			require.False(t, ch.closed.Load(), "a wall step of %s closed a live broker's channel", step)
			h.WaitIdle()
			require.NotNil(t, h.Lookup("t1"), "a wall step of %s dropped the routes", step)

			h.clock.Advance(DefaultBrokerTimeout - time.Second) // silent: last + timeout == now, not expired yet
			require.Zero(t, h.scanNow())
			h.clock.Advance(time.Millisecond)
			require.Equal(t, 1, h.scanNow(), "a wall step of %s kept a dead broker past its timeout", step)
			require.True(t, ch.closed.Load())
			h.WaitIdle()
			require.Nil(t, h.Lookup("t1"), "the dead broker's routes go")
		})
	}
}
