//go:build embedded_controller

package controller

import (
	"io"
	"math"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestAttackStrangerTermCannotExhaustTerms (Raft port): a
// stranger's RPC carrying a term near 2^64 raised the node's persisted
// term there; the next election's term wraps to 0 and the node never
// leads again, across restarts. Such an RPC is refused and the node
// leads on.
func TestAttackStrangerTermCannotExhaustTerms(t *testing.T) {
	c := startRealController(t, testlog.New(t, "controller"))
	tr, err := raft.NewTCPTransport("127.0.0.1:0", nil, 2, 5*time.Second, io.Discard)
	require.NoError(t, err)
	defer tr.Close()
	target := raft.ServerAddress(c.Node().Addr())
	hdr := raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("stranger"), Addr: []byte(tr.LocalAddr())}
	before := c.Node().Raft().CurrentTerm()
	for name, send := range map[string]func() error{
		"append entries": func() error {
			var resp raft.AppendEntriesResponse
			return tr.AppendEntries("n0", target, &raft.AppendEntriesRequest{RPCHeader: hdr, Term: math.MaxUint64,
				PrevLogEntry: 1 << 40, PrevLogTerm: 1}, &resp)
		},
		"heartbeat": func() error {
			var resp raft.AppendEntriesResponse
			return tr.AppendEntries("n0", target, &raft.AppendEntriesRequest{RPCHeader: hdr, Term: math.MaxUint64}, &resp)
		},
		"vote": func() error {
			var resp raft.RequestVoteResponse
			return tr.RequestVote("n0", target, &raft.RequestVoteRequest{RPCHeader: hdr, Term: math.MaxUint64 - 1,
				LastLogIndex: 1 << 40, LastLogTerm: math.MaxUint64 - 1}, &resp)
		},
	} {
		err := send()
		term := c.Node().Raft().CurrentTerm()
		t.Logf("%s: answered %v; term now %d", name, err, term)
		require.Eventually(t, func() bool { return c.Node().Raft().State() == raft.Leader }, 10*time.Second, 50*time.Millisecond,
			"the node leads again (term %d)", c.Node().Raft().CurrentTerm())
		now := c.Node().Raft().CurrentTerm()
		require.GreaterOrEqual(t, now, before, "%s: terms never go backwards", name)
		require.Less(t, now, uint64(1<<40), name)
		before = now
	}
}
