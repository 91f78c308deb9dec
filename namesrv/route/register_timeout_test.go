package route

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHeartbeatTimeoutZeroExpiresAtNextScan: Java keeps a present
// heartbeatTimeoutMillis of 0 (or below), and scanNotActiveBroker expires
// the broker once last + timeout < now, at the first scan after it.
func TestHeartbeatTimeoutZeroExpiresAtNextScan(t *testing.T) {
	h := newHarness(t, false)
	r := reg("c1", "b1", "a1", 0, body(1, "t1", "t2"))
	r.HeartbeatTimeoutMillis = HeartbeatTimeoutNone
	mustRegister(t, h, r)
	start := h.clock.Mono()
	require.Equal(t, 0, h.ScanExpired(start), "not before its last refresh")
	require.Equal(t, 1, h.ScanExpired(start.Add(time.Millisecond)))
}
