//go:build embedded_controller

package liveness

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAttackHeartbeatTimeoutExtremesExpireOnTime: a broker's
// heartbeatTimeoutMills is a stranger's number. Absent, zero or negative
// it means the default (10 s), above 60 s it is capped; math.MaxInt64 must
// not overflow the monotonic deadline into "never" or "already". Each
// broker expires exactly at its timeout, whatever wall step came in
// between, and none stretches a node's warm-up (10 s).
func TestAttackHeartbeatTimeoutExtremesExpireOnTime(t *testing.T) {
	cases := []struct {
		timeout *int64
		expiry  time.Duration
	}{
		{nil, 10 * time.Second}, {ptr(int64(0)), 10 * time.Second}, {ptr(int64(-1)), 10 * time.Second},
		{ptr(int64(math.MinInt64)), 10 * time.Second}, {ptr(int64(1)), time.Millisecond},
		{ptr(int64(60_001)), time.Minute}, {ptr(int64(math.MaxInt64)), time.Minute},
	}
	for _, c := range cases {
		for _, step := range wallSteps {
			name := "nil"
			if c.timeout != nil {
				name = fmt.Sprint(*c.timeout)
			}
			t.Run(fmt.Sprintf("%s/%s", name, step), func(t *testing.T) {
				e := newHBEnv(t)
				b := beat(1, "a1", 1, 10)
				b.HeartbeatTimeoutMillis = c.timeout
				require.NoError(t, e.m.OnHeartbeat(b, 1))
				e.clock.StepWall(step)
				e.clock.Advance(c.expiry)
				require.True(t, e.m.IsActive("c", "b", 1), "alive at its timeout")
				require.Empty(t, e.m.Scan())
				e.clock.Advance(time.Nanosecond)
				require.False(t, e.m.IsActive("c", "b", 1), "expired past its timeout")
				require.Len(t, e.m.Scan(), 1)
				e.clock.Advance(max(ViewWarmup-c.expiry-time.Nanosecond, 0))
				require.True(t, e.m.ViewComplete(), "the warm-up is 10 s whatever the timeout")
			})
		}
	}
}
