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
	"github.com/rmqgo/nameserver/internal/lograte/logratetest"
)

// byteCount counts what a logger writes.
type byteCount struct{ n atomic.Int64 }

func (b *byteCount) Write(p []byte) (int, error) { b.n.Add(int64(len(p))); return len(p), nil }

// TestAttackStrangerVoteAddressIsCut: hashicorp/raft logs the
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

// TestAttackStrangerRaftRPCLogLinesAreBounded: the Raft RPCs a
// stranger can send besides votes reach hashicorp/raft's own logger:
// pre-votes, AppendEntries with a higher term (the node steps down, then
// elects itself again), AppendEntries with entries that do not follow its
// log, and TimeoutNow (InstallSnapshot: TestAttackStrangerRaftRPCCannotCrash). Each is
// sent 500 times; no message is written more than lograte.Burst times per
// window of the run.
func TestAttackStrangerRaftRPCLogLinesAreBounded(t *testing.T) {
	logger, lines := logratetest.Logger("controller")
	c := startRealController(t, logger)
	tr, err := raft.NewTCPTransport("127.0.0.1:0", nil, 2, 5*time.Second, io.Discard)
	require.NoError(t, err)
	defer tr.Close()
	target := raft.ServerAddress(c.Node().Addr())
	hdr := raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("stranger"), Addr: []byte(tr.LocalAddr())}
	logratetest.Drive(t, lines, 500, []logratetest.Path{
		{Name: "pre-vote from a stranger", Run: func(t *testing.T, n int) {
			for i := range n {
				var resp raft.RequestPreVoteResponse
				_ = tr.RequestPreVote("n0", target, &raft.RequestPreVoteRequest{RPCHeader: hdr, Term: uint64(i + 2),
					LastLogIndex: 1 << 40, LastLogTerm: 1 << 30}, &resp)
			}
		}},
		{Name: "append entries with a higher term", Run: func(t *testing.T, n int) {
			for i := range n {
				var resp raft.AppendEntriesResponse
				_ = tr.AppendEntries("n0", target, &raft.AppendEntriesRequest{RPCHeader: hdr, Term: uint64(1000 + i),
					PrevLogEntry: 1 << 40, PrevLogTerm: 7, LeaderCommitIndex: 1 << 40}, &resp)
			}
		}},
		{Name: "append entries that do not follow the log", Run: func(t *testing.T, n int) {
			for i := range n {
				var resp raft.AppendEntriesResponse
				_ = tr.AppendEntries("n0", target, &raft.AppendEntriesRequest{RPCHeader: hdr, Term: uint64(5000 + i),
					Entries: []*raft.Log{{Index: 1 << 20, Term: uint64(5000 + i), Type: raft.LogCommand, Data: []byte("x")}}}, &resp)
			}
		}},
		{Name: "timeout now", Run: func(t *testing.T, n int) {
			for range n {
				var resp raft.TimeoutNowResponse
				_ = tr.TimeoutNow("n0", target, &raft.TimeoutNowRequest{RPCHeader: hdr}, &resp)
			}
		}},
	})
}
