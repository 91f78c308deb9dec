//go:build embedded_controller

package raftstore

import (
	"testing"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/certreload"
	"github.com/rmqgo/nameserver/internal/lograte/logratetest"
	"github.com/rmqgo/nameserver/internal/testcerts"
)

// TestAttackTransportGarbageLogIsBounded: hashicorp/raft logs
// "failed to decode incoming command" at ERROR for every connection of
// garbage, and the TLS layer a warning for every failed handshake; both
// transports hand raft a rate-limited logger, so 500 such connections
// write at most lograte.Burst lines of each message per second.
func TestAttackTransportGarbageLogIsBounded(t *testing.T) {
	logger, lines := logratetest.Logger("raft")
	plain, err := NewTCPTransport("127.0.0.1:0", "", logger.Named("plain"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = plain.Close() })
	ca := testcerts.NewCA(t, "raft-ca")
	files := ca.Issue(t, testcerts.LeafOptions{CommonName: "n0"}).WriteFiles(t, t.TempDir(), "n0", ca)
	rl, err := certreload.New(files.Cert, files.Key, files.CA, testLogger(t, "n0"))
	require.NoError(t, err)
	tlsTrans, err := NewTLSTransport("127.0.0.1:0", "", rl.ServerConfig(), rl.ClientConfig(), Inbound{}, logger.Named("tls"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = tlsTrans.Close() })
	garbage := func(tr *raft.NetworkTransport, first []byte) func(t *testing.T, n int) {
		return func(t *testing.T, n int) { logratetest.Conns(t, string(tr.LocalAddr()), n, first) }
	}
	logratetest.Drive(t, lines, 500, []logratetest.Path{
		{Name: "garbage to the tcp transport", Run: garbage(plain, []byte("\x09GARBAGE\r\n"))},
		{Name: "unknown rpc to the tcp transport", Run: garbage(plain, []byte{0, 0xc1, 0xc1})},
		{Name: "plaintext to the tls transport", Run: garbage(tlsTrans, []byte("\x00GARBAGE\r\n"))},
		{Name: "tls handshake refused by the client", Run: func(t *testing.T, n int) {
			logratetest.BadHandshakes(t, string(tlsTrans.LocalAddr()), n)
		}},
	})
}
