package remoting

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/monotime"
)

// TestDeadlineReachedBeforeIdleNoSpin: the read deadline is set from the
// last activity without reading the clock, so a second request soon after
// the first keeps the first one's deadline, which then comes before the
// idle limit. Reaching it must set a new deadline (not spin on one in the
// past) and the connection must still close at its idle limit, not before.
func TestDeadlineReachedBeforeIdleNoSpin(t *testing.T) {
	const idle = 600 * time.Millisecond
	clock := &monotime.Shifted{}
	s := NewServer(ServerConfig{IdleTimeout: idle, Logger: testLogger(t)})
	s.clock = clock
	s.Register(1, echo)
	c := dial(t, startServer(t, s), ClientOptions{})
	require.Equal(t, Success, invoke(t, c, NewRequest(1, nil, nil)).Code)
	time.Sleep(idle / 12) // within idle/8: the second request keeps the deadline
	sent := time.Now()    // the server's last read and write come after it
	require.Equal(t, Success, invoke(t, c, NewRequest(1, nil, nil)).Code)
	before := clock.Reads()
	select {
	case <-c.Done():
	case <-time.After(10 * idle):
		t.Fatal("connection not closed after 10 idle timeouts")
	}
	quiet, reads := time.Since(sent), clock.Reads()-before
	t.Logf("closed %s after the last request; %d clock reads", quiet, reads)
	require.GreaterOrEqual(t, quiet, idle, "closed before its idle limit")
	require.Less(t, reads, int64(100), "the read loop spun on a deadline in the past")
}
