//go:build embedded_controller

package raftstore

import (
	"net"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/certreload"
	"github.com/rmqgo/nameserver/internal/connlimit"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestAttackInboundHandshakeLogBounded: anyone who reaches the Raft port
// can fail a TLS handshake (connect and close, send garbage, present no
// certificate), so the warning about it is rate-limited like every line
// a stranger can cause: one a second, counting those left out.
func TestAttackInboundHandshakeLogBounded(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	files := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "server", ca)
	rl, err := certreload.New(files.Cert, files.Key, files.CA, testLogger(t, "rl"))
	require.NoError(t, err)
	logger, logs := testlog.Capture(t, "server", hclog.Warn)
	budget := connlimit.NewBudget(1000)
	layer, err := NewTLSStreamLayer("127.0.0.1:0", "", rl.ServerConfig(), rl.ClientConfig(),
		Inbound{Budget: budget}, logger)
	require.NoError(t, err)
	answerVotes(t, layer.Transport(logger))
	start := time.Now()
	const n = 50
	for range n {
		c, err := net.Dial("tcp", layer.Addr().String())
		require.NoError(t, err)
		_, _ = c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
		_ = c.Close()
	}
	require.Eventually(t, func() bool { _, failed := layer.Handshakes(); return failed == n },
		10*time.Second, 5*time.Millisecond)
	time.Sleep(200 * time.Millisecond) // the transport's lines, if any
	lines, errs := logs.Count("tls handshake failed"), logs.Count("failed to decode incoming command")
	elapsed := time.Since(start) // after the count: every line counted is within it
	t.Logf("%d failed handshakes in %s: %d warnings, %d transport errors", n, elapsed, lines, errs)
	require.LessOrEqual(t, lines, int(elapsed/time.Second)+1, logs.String())
	require.LessOrEqual(t, errs, int(elapsed/time.Second)+1, logs.String())
	require.Eventually(t, func() bool { return budget.InUse() == 0 }, 5*time.Second, 5*time.Millisecond,
		"a failed handshake gives its place back")
}

// TestAttackInboundDecodeLogBounded: raft's transport logs an error for
// every inbound connection that ends on anything but EOF (garbage, a
// failed TLS handshake, a silent connection closed by the first-read
// timeout, one closed to admit a newer one): anyone who reaches the port
// can cause it, so it is rate-limited too.
func TestAttackInboundDecodeLogBounded(t *testing.T) {
	for name, garbage := range map[string][]byte{"unknown rpc type": {0xff}, "bad msgpack": {0, 0xc1}} {
		t.Run(name, func(t *testing.T) {
			logger, logs := testlog.Capture(t, "server", hclog.Warn)
			budget := connlimit.NewBudget(1000)
			tr, err := NewBoundedTCPTransport("127.0.0.1:0", "", Inbound{Budget: budget}, logger)
			require.NoError(t, err)
			answerVotes(t, tr)
			start := time.Now()
			const n = 50
			for range n {
				c, err := net.Dial("tcp", string(tr.LocalAddr()))
				require.NoError(t, err)
				_, _ = c.Write(garbage)
				_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
				_, _ = c.Read(make([]byte, 1)) // closed by the server
				_ = c.Close()
			}
			require.Eventually(t, func() bool { return logs.Count("failed to decode incoming command") >= 1 },
				5*time.Second, 5*time.Millisecond)
			time.Sleep(200 * time.Millisecond) // the other connections' lines, if any
			lines := logs.Count("failed to decode incoming command")
			elapsed := time.Since(start) // after the count: every line counted is within it
			t.Logf("%d bad connections in %s: %d error lines", n, elapsed, lines)
			require.LessOrEqual(t, lines, int(elapsed/time.Second)+1, logs.String())
			require.Eventually(t, func() bool { return budget.InUse() == 0 }, 5*time.Second, 5*time.Millisecond,
				"a connection closed on garbage gives its place back")
		})
	}
}
