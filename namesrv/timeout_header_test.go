package namesrv

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// TestRegisterHeaderTimeoutZeroKept: a heartbeatTimeoutMillis of 0 (or
// below) is Java's timeout, not an absent one: the broker expires at the
// next scan, not after 120 s.
func TestRegisterHeaderTimeoutZeroKept(t *testing.T) {
	decode := func(timeout string, present bool) int64 {
		ext := map[string]string{"clusterName": "c", "brokerAddr": "a", "brokerName": "b", "haServerAddr": "h",
			"brokerId": "0"}
		if present {
			ext["heartbeatTimeoutMillis"] = timeout
		}
		rr, err := decodeRegisterHeader(remoting.NewRequest(remoting.RegisterBroker, ext, nil))
		require.NoError(t, err)
		return rr.HeartbeatTimeoutMillis
	}
	require.Equal(t, int64(0), decode("", false), "absent: the default")
	require.Equal(t, wire.HeartbeatTimeoutNone, decode("0", true))
	require.Equal(t, wire.HeartbeatTimeoutNone, decode("-5", true))
	require.Equal(t, int64(30000), decode("30000", true))
}
