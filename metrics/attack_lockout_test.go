package metrics

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/connlimit"
)

// TestAttackIdleKeepAliveLocksOutHealthProbe: a stranger holding every
// place of the cap with idle keep-alive connections (one request a minute
// keeps each open) must not lock out /healthz, which the liveness probes
// of the shipped Kubernetes manifest and Docker image ask over a new
// connection: a failed probe restarts the node. At the cap the oldest
// connection gives its place to the newcomer.
func TestAttackIdleKeepAliveLocksOutHealthProbe(t *testing.T) {
	b := connlimit.NewBudget(100)
	e := startLimited(t, Limits{MaxConnections: 8, Budget: b})
	addr := e.Addr().String()
	var held []net.Conn
	for range 8 {
		c, _, err := keepAlive(t, addr)
		require.NoError(t, err)
		held = append(held, c)
	}
	for i := range 20 {
		_, _, err := keepAlive(t, addr)
		require.NoError(t, err, "probe %d over a cap held by idle keep-alive connections", i)
	}
	open, _ := e.Conns()
	require.LessOrEqual(t, open, 8, "the cap still holds")
	require.LessOrEqual(t, b.InUse(), 8)
	_ = held
}
