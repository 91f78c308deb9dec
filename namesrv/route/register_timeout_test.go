package route

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// TestHeartbeatTimeoutZeroExpiresAtNextScan: Java keeps a present
// heartbeatTimeoutMillis of 0 (or below), and scanNotActiveBroker expires
// the broker once last + timeout < now, at the first scan after it.
func TestHeartbeatTimeoutZeroExpiresAtNextScan(t *testing.T) {
	h := newHarness(t, false)
	r := reg("c1", "b1", "a1", 0, body(1, "t1", "t2"))
	r.HeartbeatTimeoutMillis = wire.HeartbeatTimeoutNone
	mustRegister(t, h, r)
	start := h.clock.Mono()
	require.Equal(t, 0, h.ScanExpired(start), "not before its last refresh")
	require.Equal(t, 1, h.ScanExpired(start.Add(time.Millisecond)))
}

// TestAttackRegisterTimeoutExtremesExpireOnTime: a broker's
// heartbeatTimeoutMillis is a stranger's number. Zero or negative means
// the default (120 s), above MaxBrokerTimeout it is capped; MaxInt64 must
// not overflow the monotonic deadline into an instant expiry or into
// "never". A heartbeat after a ±10 min wall step refreshes the entry, and
// it expires exactly at its timeout after that heartbeat.
func TestAttackRegisterTimeoutExtremesExpireOnTime(t *testing.T) {
	cases := []struct {
		millis int64
		expiry time.Duration
	}{
		{0, DefaultBrokerTimeout}, {wire.HeartbeatTimeoutNone, 0}, {math.MinInt64, 0},
		{1, time.Millisecond}, {MaxBrokerTimeout.Milliseconds() + 1, MaxBrokerTimeout},
		{math.MaxInt64, MaxBrokerTimeout},
	}
	for _, c := range cases {
		for _, step := range []time.Duration{10 * time.Minute, -10 * time.Minute} {
			t.Run(fmt.Sprintf("%d/%s", c.millis, step), func(t *testing.T) {
				h := newHarness(t, true)
				r := reg("c1", "b1", "a1", 0, body(1, "t1", "t2"))
				r.Channel, r.HeartbeatTimeoutMillis = newChan("c"), c.millis
				mustRegister(t, h, r)
				require.Zero(t, h.scanNow(), "not expired at once")
				h.clock.StepWall(step)
				h.clock.Advance(c.expiry / 2)
				h.Heartbeat("c1", "a1")
				h.clock.Advance(c.expiry)
				require.Zero(t, h.scanNow(), "alive at its timeout after the heartbeat")
				h.clock.Advance(time.Nanosecond)
				require.Equal(t, 1, h.scanNow(), "expired past its timeout")
			})
		}
	}
}
