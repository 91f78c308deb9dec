//go:build embedded_controller

package raftstore

import (
	"net"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/certreload"
	"github.com/rmqgo/nameserver/internal/connlimit"
	"github.com/rmqgo/nameserver/internal/testcerts"
)

// answerVotes answers every RequestVote of tr with term 7 until the test
// ends.
func answerVotes(t *testing.T, tr *raft.NetworkTransport) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case rpc := <-tr.Consumer():
				rpc.Respond(&raft.RequestVoteResponse{Term: 7}, nil)
			case <-done:
				return
			}
		}
	}()
	t.Cleanup(func() { close(done); _ = tr.Close() })
}

// strangers opens n connections to addr, each sending first (when not
// nil) and then nothing.
func strangers(t *testing.T, addr string, n int, first []byte) {
	for range n {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		if first != nil {
			_, err = c.Write(first)
			require.NoError(t, err)
		}
	}
}

func vote(tr raft.Transport, addr raft.ServerAddress) error {
	var resp raft.RequestVoteResponse
	return tr.RequestVote("server", addr, &raft.RequestVoteRequest{}, &resp)
}

// TestAttackStrangersLockPeersOutOfRaftInbound: strangers holding every
// place of the inbound cap (plain: one byte, an RPC type, then silence,
// which lifts the first-read deadline for ever; TLS: no certificate, a
// handshake that never ends, renewed every 5 s) must not lock out a peer:
// a new leader, a restarted peer or a pipeline dials afresh, and a refused
// dial stalls replication and elections. A peer's proven connection (one
// answered; with TLS, its handshake done) is never given up for them.
func TestAttackStrangersLockPeersOutOfRaftInbound(t *testing.T) {
	const max = 4
	ca := testcerts.NewCA(t, "raft-ca")
	for name, setup := range map[string]func(t *testing.T, in Inbound) (srv, peer, peer2 *raft.NetworkTransport, first []byte){
		"plain": func(t *testing.T, in Inbound) (*raft.NetworkTransport, *raft.NetworkTransport, *raft.NetworkTransport, []byte) {
			srv, err := NewBoundedTCPTransport("127.0.0.1:0", "", in, testLogger(t, "server"))
			require.NoError(t, err)
			peer, err := NewTCPTransport("127.0.0.1:0", "", testLogger(t, "peer"))
			require.NoError(t, err)
			peer2, err := NewTCPTransport("127.0.0.1:0", "", testLogger(t, "peer2"))
			require.NoError(t, err)
			return srv, peer, peer2, []byte{0} // rpcAppendEntries
		},
		"tls": func(t *testing.T, in Inbound) (*raft.NetworkTransport, *raft.NetworkTransport, *raft.NetworkTransport, []byte) {
			files := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "server", ca)
			rl, err := certreload.New(files.Cert, files.Key, files.CA, testLogger(t, "rl"))
			require.NoError(t, err)
			layer, err := NewTLSStreamLayer("127.0.0.1:0", "", rl.ServerConfig(), rl.ClientConfig(), in, testLogger(t, "server"))
			require.NoError(t, err)
			return layer.Transport(testLogger(t, "server")), newTLSMember(t, ca, ca, testcerts.LeafOptions{}, "peer").trans,
				newTLSMember(t, ca, ca, testcerts.LeafOptions{}, "peer2").trans, nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			budget := connlimit.NewBudget(100)
			srv, peer, peer2, first := setup(t, Inbound{MaxConns: max, Budget: budget})
			answerVotes(t, srv)
			defer peer.Close()
			defer peer2.Close()
			require.NoError(t, vote(peer, srv.LocalAddr()), "a peer's pooled connection")
			strangers(t, string(srv.LocalAddr()), 2*max, first)
			require.Eventually(t, func() bool { return budget.InUse() == max }, 5*time.Second, 5*time.Millisecond)
			require.NoError(t, vote(peer2, srv.LocalAddr()), "a peer dialling afresh while strangers hold the cap")
			require.NoError(t, vote(peer, srv.LocalAddr()), "the first peer's pooled connection")
			require.LessOrEqual(t, budget.InUse(), max, "the cap still holds")
		})
	}
}
