package lograte

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

// TestWrapConcurrentAccounting: 32 goroutines, each on its own
// per-connection sub-logger (Named, With), write 4 messages with long
// values for 2.5 s (at least 2,000 lines each), across windows. Every line is accounted for exactly once:
// written, counted in a later line's "suppressed", or still pending in
// its limiter; no message passes more than Burst lines per window of the
// run; no value is written longer than the cut. Run it with -race.
func TestWrapConcurrentAccounting(t *testing.T) {
	var out buffer
	l := Wrap(hclog.New(&hclog.LoggerOptions{Name: "srv", Output: &out, JSONFormat: true}))
	const goroutines, lines = 32, 2000
	var sent [4]atomic.Int64
	msgs := []string{"connection closed", "request denied", "bad frame", "handshake failed"}
	big := strings.Repeat("x", 4*MaxValue)
	start := time.Now()
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn := l.Named("remoting").With("conn", g)
			for i := 0; i < lines || time.Since(start) < 2500*time.Millisecond; i++ {
				conn.Warn(msgs[i%len(msgs)], "remote", big, "i", i)
				sent[i%len(msgs)].Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	written, suppressed := map[string]int{}, map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out.b.String()), "\n") {
		require.Less(t, len(line), 2*MaxValue, "a value was not cut")
		var m struct {
			Msg        string `json:"@message"`
			Suppressed int    `json:"suppressed"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		written[m.Msg]++
		suppressed[m.Msg] += m.Suppressed
	}
	state := l.(*logger).s
	bound := Burst * (int(elapsed/Every) + 1)
	for k, msg := range msgs {
		lim := state.limits["srv.remoting\x00"+msg]
		require.NotNil(t, lim, "limiter of %q", msg)
		lim.mu.Lock()
		pending := lim.suppressed
		lim.mu.Unlock()
		total := int(sent[k].Load())
		t.Logf("%-18s written %3d, suppressed %6d on later lines, %6d pending (of %d) in %v",
			msg, written[msg], suppressed[msg], pending, total, elapsed.Round(time.Millisecond))
		require.Equal(t, total, written[msg]+suppressed[msg]+pending, fmt.Sprintf("every %q line accounted for", msg))
		require.LessOrEqual(t, written[msg], bound)
	}
}
