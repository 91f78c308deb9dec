package proxyproto

import (
	"bufio"
	"bytes"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/remoting"
)

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
	logger, logs := testlog.Capture(t, "proxyproto", hclog.Debug)
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	h := newHook([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, logger)
	h.now = func() time.Time { return now }
	for range 100 {
		require.ErrorIs(t, runHookOnPipe(t, h, "PROXY TCP4 10.9.9.9 10.0.0.1 1234 9876\r\n"), ErrUntrusted)
	}
	require.Equal(t, 1, logs.Count("untrusted source"), logs.String())
	now = now.Add(time.Second)
	require.ErrorIs(t, runHookOnPipe(t, h, "PROXY UNKNOWN\r\n"), ErrUntrusted)
	require.Equal(t, 2, logs.Count("untrusted source"), logs.String())
	require.Contains(t, logs.String(), "suppressed=99")
}

// TestAttackHeaderSplitOrFollowedByLargeFrame: a header that arrives a
// byte at a time, and one followed in the same write by a frame far
// larger than the hook's read buffer, both reveal the client and lose no
// byte of the frame.
func TestAttackHeaderSplitOrFollowedByLargeFrame(t *testing.T) {
	s := startHookServer(t, "127.0.0.0/8")
	header := []byte("PROXY TCP4 192.0.2.1 198.51.100.2 56324 9876\r\n")
	big := remoting.NewRequest(echoCode, map[string]string{"k": "v"}, bytes.Repeat([]byte("x"), 200<<10))
	for _, tc := range []struct {
		name   string
		writes [][]byte
	}{
		{"byte by byte", append(splitBytes(header), remoting.EncodeFrame(nil, remoting.NewRequest(echoCode, nil, nil)))},
		{"with a 200 KiB frame", [][]byte{remoting.EncodeFrame(append([]byte(nil), header...), big)}},
	} {
		nc, err := net.Dial("tcp", s.addr)
		require.NoError(t, err)
		_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
		for _, w := range tc.writes {
			_, err := nc.Write(w)
			require.NoError(t, err, tc.name)
		}
		frame, err := remoting.ReadFrame(bufio.NewReader(nc), 0, nil)
		require.NoError(t, err, tc.name)
		resp, err := remoting.DecodeFrame(frame)
		require.NoError(t, err)
		require.Equal(t, "192.0.2.1:56324", resp.Remark, tc.name)
		_ = nc.Close()
	}
}

func splitBytes(b []byte) [][]byte {
	out := make([][]byte, len(b))
	for i := range b {
		out[i] = b[i : i+1]
	}
	return out
}
