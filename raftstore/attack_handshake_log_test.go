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
	rl, err := certreload.New(files.Cert, files.Key, files.CA, TestLogger(t, "rl"))
	require.NoError(t, err)
	logger, logs := testlog.Capture(t, "server", hclog.Warn)
	layer, err := NewTLSStreamLayer("127.0.0.1:0", "", rl.ServerConfig(), rl.ClientConfig(),
		Inbound{Budget: connlimit.NewBudget(1000)}, logger)
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
	elapsed := time.Since(start)
	lines := logs.Count("tls handshake failed")
	t.Logf("%d failed handshakes in %s: %d warnings", n, elapsed, lines)
	require.LessOrEqual(t, lines, int(elapsed/time.Second)+1, logs.String())
}
