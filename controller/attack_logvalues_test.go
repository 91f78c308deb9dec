//go:build embedded_controller

package controller

import (
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/lograte"
)

// byteCount counts what a logger writes.
type byteCount struct{ n atomic.Int64 }

func (b *byteCount) Write(p []byte) (int, error) { b.n.Add(int64(len(p))); return len(p), nil }

// TestAttackStrangerVoteAddressIsCut (issue 15): hashicorp/raft logs the
// candidate of a vote from a node outside its configuration ("rejecting
// vote request since node is not in configuration", "from", candidate)
// as a raft.ServerAddress, the bytes the stranger put in the RPC header.
// 20 votes whose header carries a 256 KiB address write at most a few
// KiB of log, not the addresses whole.
func TestAttackStrangerVoteAddressIsCut(t *testing.T) {
	var out byteCount
	c := startRealController(t, hclog.New(&hclog.LoggerOptions{Name: "controller", Level: hclog.Info, Output: &out}))
	tr, err := raft.NewTCPTransport("127.0.0.1:0", nil, 2, 5*time.Second, io.Discard)
	require.NoError(t, err)
	defer tr.Close()
	before := out.n.Load()
	addr := []byte(strings.Repeat("a", 256<<10))
	const votes = 20
	for i := range votes {
		req := &raft.RequestVoteRequest{RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("stranger"), Addr: addr},
			Term: 1, LastLogIndex: uint64(i), LastLogTerm: 1}
		var resp raft.RequestVoteResponse
		require.NoError(t, tr.RequestVote("n0", raft.ServerAddress(c.Node().Addr()), req, &resp))
		require.False(t, resp.Granted)
	}
	written := out.n.Load() - before
	t.Logf("%d votes with a %d-byte candidate address: %d bytes of log", votes, len(addr), written)
	require.Less(t, written, int64(votes*4*lograte.MaxValue))
}
