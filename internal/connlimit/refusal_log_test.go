package connlimit

import (
	"net"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestAttackRefusalLogBounded: every connection over a bound can be a
// stranger's, so the warnings about them (closed over the cap, or an
// older one closed in its place) come at most once a second per
// listener, counting those left out.
func TestAttackRefusalLogBounded(t *testing.T) {
	for name, prove := range map[string]bool{"evicted": false, "refused": true} {
		t.Run(name, func(t *testing.T) {
			logger, logs := testlog.Capture(t, "l", hclog.Warn)
			l := serve(t, Config{Max: 1, Budget: NewBudget(10), ProveOnWrite: prove, Logger: logger})
			_, ok := echo(t, l)
			require.True(t, ok)
			start := time.Now()
			const n = 50
			for range n {
				c, err := net.Dial("tcp", l.Addr().String())
				require.NoError(t, err)
				if prove {
					require.True(t, closed(t, c))
				}
				_, _ = echo(t, l) // each over the cap
				_ = c.Close()
			}
			poll.Until(t, "l.Refused()+l.Evicted() >= n", 5*time.Second, 5*time.Millisecond, poll.True(func() bool { return l.Refused()+l.Evicted() >= n }))
			lines := logs.Count("closing") // before the time: every line counted is within it
			elapsed := time.Since(start)
			t.Logf("%d refused, %d evicted in %s: %d warnings", l.Refused(), l.Evicted(), elapsed, lines)
			require.GreaterOrEqual(t, lines, 1)
			require.LessOrEqual(t, lines, int(elapsed/time.Second)+1, logs.String())
		})
	}
}
