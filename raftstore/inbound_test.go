//go:build embedded_controller

package raftstore

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/connlimit"
)

// voteServer runs a bounded transport that answers every RequestVote
// with term 7.
func voteServer(t *testing.T, in Inbound) *raft.NetworkTransport {
	t.Helper()
	tr, err := NewBoundedTCPTransport("127.0.0.1:0", "", in, testLogger(t, "server"))
	require.NoError(t, err)
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
	return tr
}

// refused reports whether the server closes c without a byte.
func refused(t *testing.T, c net.Conn) bool {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(500*time.Millisecond)))
	_, err := c.Read(make([]byte, 1))
	return err == io.EOF
}

func TestInboundConnectionCap(t *testing.T) {
	budget := connlimit.NewBudget(100)
	srv := voteServer(t, Inbound{MaxConns: 3, Budget: budget})
	addr := string(srv.LocalAddr())
	var idle []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		idle = append(idle, c)
	}
	require.Eventually(t, func() bool { return budget.InUse() == 3 }, 5*time.Second, 5*time.Millisecond)
	over, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer over.Close()
	require.True(t, refused(t, idle[0]), "a connection over the cap takes the place of the oldest silent one")
	require.False(t, refused(t, over), "the new connection stays open")
	require.False(t, refused(t, idle[1]), "the other connections within the cap stay open")

	require.NoError(t, idle[1].Close())
	require.NoError(t, idle[2].Close())
	require.Eventually(t, func() bool { return budget.InUse() == 1 }, 5*time.Second, 5*time.Millisecond)
	client, err := NewTCPTransport("127.0.0.1:0", "", testLogger(t, "client"))
	require.NoError(t, err)
	defer client.Close()
	var resp raft.RequestVoteResponse
	require.NoError(t, client.RequestVote("server", srv.LocalAddr(), &raft.RequestVoteRequest{}, &resp),
		"a peer is served once connections closed")
	require.Equal(t, uint64(7), resp.Term)
}

func TestInboundDefaultCap(t *testing.T) {
	l, err := newTCPStreamLayer("127.0.0.1:0", nil, Inbound{}, testLogger(t, "l"))
	require.NoError(t, err)
	defer l.Close()
	_, err = newTCPStreamLayer("0.0.0.0:0", nil, Inbound{}, testLogger(t, "l"))
	require.ErrorContains(t, err, "not advertisable")
	budget := connlimit.NewBudget(DefaultMaxInbound + 10)
	srv := voteServer(t, Inbound{Budget: budget})
	var first net.Conn
	for i := range DefaultMaxInbound {
		c, err := net.Dial("tcp", string(srv.LocalAddr()))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		if i == 0 {
			first = c
		}
	}
	require.Eventually(t, func() bool { return budget.InUse() == DefaultMaxInbound }, 5*time.Second, 5*time.Millisecond)
	over, err := net.Dial("tcp", string(srv.LocalAddr()))
	require.NoError(t, err)
	defer over.Close()
	require.True(t, refused(t, first), "connection %d is over the default cap: the oldest gives its place", DefaultMaxInbound+1)
	require.Equal(t, DefaultMaxInbound, budget.InUse())
}
