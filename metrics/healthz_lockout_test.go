package metrics

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/connlimit"
	"github.com/rmqgo/nameserver/internal/poll"
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

// TestAttackHTTP2PrefaceGivesItsPlaceBack: an HTTP/2 prior-knowledge
// preface (h2c is not served) is answered or closed at once, and the
// connection's place comes back.
func TestAttackHTTP2PrefaceGivesItsPlaceBack(t *testing.T) {
	b := connlimit.NewBudget(100)
	e := startLimited(t, Limits{MaxConnections: 8, Budget: b})
	for range 20 {
		c, err := net.Dial("tcp", e.Addr().String())
		require.NoError(t, err)
		_, err = io.WriteString(c, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
		require.NoError(t, err)
		require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
		_, err = io.ReadAll(c)
		require.NoError(t, err, "closed by the server, not by the read deadline")
		_ = c.Close()
	}
	poll.Until(t, "open == 0 && b.InUse() == 0", 5*time.Second, 5*time.Millisecond, poll.True(func() bool { open, _ := e.Conns(); return open == 0 && b.InUse() == 0 }))
	_, _, err := keepAlive(t, e.Addr().String())
	require.NoError(t, err)
}
