package tlsconf

import (
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/lograte"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
)

const plaintextRefused = "closing a plaintext connection"

// TestAttackPlaintextFloodLogIsBounded: an enforcing
// listener flooded with plaintext connections writes at most Burst
// warnings per window, and no refusal goes uncounted: the lines plus the
// "suppressed" counts they carry add up to the connections refused.
func TestAttackPlaintextFloodLogIsBounded(t *testing.T) {
	const n = 2000
	p := newPKI(t)
	logger, lines := testlog.Capture(t, "tlsconf", hclog.Info)
	m, err := New(p.serverTLS(config.TLSModeEnforcing), logger)
	require.NoError(t, err)
	t.Cleanup(m.Close)
	addr := startEcho(t, m)
	start := time.Now()
	floodPlaintext(t, addr, n)
	elapsed := time.Since(start)
	got := lines.Count(plaintextRefused)
	bound := lograte.Burst * (int(elapsed/lograte.Every) + 1)
	t.Logf("%d plaintext connections in %v: %d warning lines (bound %d)", n, elapsed, got, bound)
	require.LessOrEqual(t, got, bound, "warnings of refused plaintext connections")
	sent := n
	poll.Until(t, "every refusal is a line or counted in one", 10*time.Second, 100*time.Millisecond, poll.True(func() bool { // a later window reports what was left out
		floodPlaintext(t, addr, 1)
		sent++
		return refusalsCounted(lines.String()) == sent
	}))
}

// floodPlaintext opens n plaintext connections to addr, 8 at a time, each
// sending a frame's first bytes and waiting for the server to close it.
func floodPlaintext(t *testing.T, addr string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	work := make(chan struct{}, n)
	for range n {
		work <- struct{}{}
	}
	close(work)
	for range 8 {
		wg.Go(func() {
			for range work {
				nc, err := net.Dial("tcp", addr)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = nc.Write([]byte{0, 0, 0, 1})
				_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
				_, _ = io.Copy(io.Discard, nc)
				_ = nc.Close()
			}
		})
	}
	wg.Wait()
}

var suppressedRE = regexp.MustCompile(plaintextRefused + `[^\n]*suppressed=(\d+)`)

// refusalsCounted is the refusal lines plus the suppressed counts they carry.
func refusalsCounted(s string) int {
	total := 0
	for _, m := range suppressedRE.FindAllStringSubmatch(s, -1) {
		v, _ := strconv.Atoi(m[1])
		total += v
	}
	return total + strings.Count(s, plaintextRefused)
}
