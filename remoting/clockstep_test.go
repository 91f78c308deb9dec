package remoting

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/monotime"
)

// maxStepReads bounds the clock reads of the clock-step test: a request
// reads the clock a few times, an idle wait about twice; a read loop
// spinning on a deadline in the past reads it hundreds of thousands of
// times a second.
const maxStepReads = 5000

// TestWallStepNoSpinAndIdleStillCloses steps the server's wall clock ±10
// min (monotime.Shifted: sockets and timers keep real time, as under an
// NTP step) with two connections open: one answered every quarter of the
// idle timeout for three timeouts, one idle. The busy one is answered
// throughout, the idle one is closed (after its idle timeout), and no
// loop spins: the clock is read at most maxStepReads times in all.
func TestWallStepNoSpinAndIdleStillCloses(t *testing.T) {
	const idle = time.Second
	for _, step := range []time.Duration{10 * time.Minute, -10 * time.Minute} {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			t.Parallel() // each on its own server and clock
			clock := &monotime.Shifted{}
			s := NewServer(ServerConfig{IdleTimeout: idle, Logger: testLogger(t)})
			s.clock = clock
			s.Register(1, echo)
			addr := startServer(t, s)
			busy, quiet := dial(t, addr, ClientOptions{}), dial(t, addr, ClientOptions{})
			require.Equal(t, Success, invoke(t, busy, NewRequest(1, nil, nil)).Code)
			require.Equal(t, Success, invoke(t, quiet, NewRequest(1, nil, nil)).Code)
			clock.StepWall(step)
			before := clock.Reads()

			failed, quietClosed := 0, false
			for range 12 { // three idle timeouts
				time.Sleep(idle / 4)
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				if resp, err := busy.Invoke(ctx, NewRequest(1, nil, nil)); err != nil || resp.Code != Success {
					failed++
				}
				cancel()
				select {
				case <-quiet.Done():
					quietClosed = true
				default:
				}
			}
			reads := clock.Reads() - before
			t.Logf("wall step %s: busy connection %d/12 requests failed; idle connection closed: %v; %d clock reads",
				step, failed, quietClosed, reads)
			require.Zero(t, failed, "a wall step of %s failed requests on a busy connection", step)
			require.True(t, quietClosed, "a wall step of %s kept an idle connection past 3 idle timeouts", step)
			require.Less(t, reads, int64(maxStepReads), "a wall step of %s made a loop spin on the clock", step)
		})
	}
}
