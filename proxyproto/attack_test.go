package proxyproto

import (
	"bytes"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runHookOnPipe runs h on one end of a pipe after writing preamble to the
// other.
func runHookOnPipe(t *testing.T, h *hook, preamble string) error {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	go func() { _, _ = client.Write([]byte(preamble)) }()
	_, err := h.run(server)
	return err
}

// TestAttackUntrustedHeadersLogBounded: every connection from an
// untrusted source that sent a PROXY header logged a warning, so anyone
// who can connect wrote a log line per connection (a few bytes each). The
// refusals are logged at most once a second, the next line counting those
// left out.
func TestAttackUntrustedHeadersLogBounded(t *testing.T) {
	var logs syncBuffer
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	h := newHook([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
		hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Debug}))
	h.now = func() time.Time { return now }
	for range 100 {
		require.ErrorIs(t, runHookOnPipe(t, h, "PROXY TCP4 10.9.9.9 10.0.0.1 1234 9876\r\n"), ErrUntrusted)
	}
	require.Equal(t, 1, strings.Count(logs.String(), "untrusted source"), logs.String())
	now = now.Add(time.Second)
	require.ErrorIs(t, runHookOnPipe(t, h, "PROXY UNKNOWN\r\n"), ErrUntrusted)
	require.Equal(t, 2, strings.Count(logs.String(), "untrusted source"), logs.String())
	require.Contains(t, logs.String(), "suppressed=99")
}
