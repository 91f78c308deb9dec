//go:build embedded_controller

package controller

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/remoting"
)

// TestAttackStrangerRaftRPCCannotCrash (Raft port): hashicorp/raft
// panics, on its own goroutine, when it decodes a configuration it cannot
// read: the one in an InstallSnapshot request (snapshot version 1) and the
// data of a LogConfiguration entry of an AppendEntries; and when it
// applies a committed entry of a type it does not know, or a committed
// index its log lacks (entries that leave a gap). Each reaches it
// from anyone who can send one RPC to the Raft port: the process, and an
// embedded NameServer with it, died. Each RPC is refused instead and the
// Controller still answers. A snapshot of garbage (with a configuration
// raft can read) is not kept: kept as the newest, it stopped the node at
// its next start ("failed to load any existing snapshots"); one
// announcing more than twice the state's hard ceiling is refused before
// raft writes it to disk.
func TestAttackStrangerRaftRPCCannotCrash(t *testing.T) {
	c := startRealController(t, testlog.New(t, "controller"))
	tr, err := raft.NewTCPTransport("127.0.0.1:0", nil, 2, 5*time.Second, io.Discard)
	require.NoError(t, err)
	defer tr.Close()
	target := raft.ServerAddress(c.Node().Addr())
	hdr := raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("stranger"), Addr: []byte(tr.LocalAddr())}
	term := func() uint64 { return c.Node().Raft().CurrentTerm() + 1 }
	for _, tc := range []struct {
		name string
		send func() error
	}{
		{"install snapshot without a configuration", func() error {
			var resp raft.InstallSnapshotResponse
			return tr.InstallSnapshot("n0", target, &raft.InstallSnapshotRequest{RPCHeader: hdr, SnapshotVersion: 1,
				Term: term(), LastLogIndex: 1 << 30, LastLogTerm: 1, Size: 8}, &resp, strings.NewReader("garbage!"))
		}},
		{"install snapshot with a garbage configuration", func() error {
			var resp raft.InstallSnapshotResponse
			return tr.InstallSnapshot("n0", target, &raft.InstallSnapshotRequest{RPCHeader: hdr, SnapshotVersion: 1,
				Term: term(), LastLogIndex: 1 << 30, LastLogTerm: 1, Size: 8, Configuration: []byte{0xc1, 0xc1}},
				&resp, strings.NewReader("garbage!"))
		}},
		{"append entries with a garbage configuration entry", func() error {
			var resp raft.AppendEntriesResponse
			last, lastTerm := lastLog(t, c)
			return tr.AppendEntries("n0", target, &raft.AppendEntriesRequest{RPCHeader: hdr, Term: term(),
				PrevLogEntry: last, PrevLogTerm: lastTerm, Entries: []*raft.Log{{Index: last + 1, Term: term(),
					Type: raft.LogConfiguration, Data: []byte{0xc1}}}}, &resp)
		}},
		{"append entries with an entry of an unknown type, committed", func() error {
			var resp raft.AppendEntriesResponse
			last, lastTerm := lastLog(t, c)
			return tr.AppendEntries("n0", target, &raft.AppendEntriesRequest{RPCHeader: hdr, Term: term(),
				PrevLogEntry: last, PrevLogTerm: lastTerm,
				Entries:           []*raft.Log{{Index: last + 1, Term: term(), Type: raft.LogType(99), Data: []byte("x")}},
				LeaderCommitIndex: last + 1}, &resp)
		}},
		{"append entries with a garbage command, committed", func() error {
			var resp raft.AppendEntriesResponse
			last, lastTerm := lastLog(t, c)
			return tr.AppendEntries("n0", target, &raft.AppendEntriesRequest{RPCHeader: hdr, Term: term(),
				PrevLogEntry: last, PrevLogTerm: lastTerm,
				Entries: []*raft.Log{{Index: last + 1, Term: term(), Type: raft.LogCommand, Data: []byte{0xff, 0xc1, 0}},
					{Index: last + 2, Term: term(), Type: raft.LogCommand, Data: nil}},
				LeaderCommitIndex: last + 2}, &resp)
		}},
		{"install snapshot of garbage with a configuration", func() error {
			var resp raft.InstallSnapshotResponse
			conf := raft.EncodeConfiguration(raft.Configuration{Servers: []raft.Server{
				{Suffrage: raft.Voter, ID: "n0", Address: target}}})
			last, _ := lastLog(t, c)
			return tr.InstallSnapshot("n0", target, &raft.InstallSnapshotRequest{RPCHeader: hdr, SnapshotVersion: 1,
				Term: term(), LastLogIndex: last + 100, LastLogTerm: term(), Size: 8, Configuration: conf,
				ConfigurationIndex: 1}, &resp, strings.NewReader("garbage!"))
		}},
		{"install snapshot announcing 1 TiB", func() error {
			var resp raft.InstallSnapshotResponse
			conf := raft.EncodeConfiguration(raft.Configuration{Servers: []raft.Server{
				{Suffrage: raft.Voter, ID: "n0", Address: target}}})
			last, _ := lastLog(t, c)
			return tr.InstallSnapshot("n0", target, &raft.InstallSnapshotRequest{RPCHeader: hdr, SnapshotVersion: 1,
				Term: term(), LastLogIndex: last + 200, LastLogTerm: term(), Size: 1 << 40, Configuration: conf,
				ConfigurationIndex: 1}, &resp, strings.NewReader(strings.Repeat("{", 1<<20)))
		}},
		{"append entries leaving a gap in the log, committed", func() error {
			var resp raft.AppendEntriesResponse
			last := c.Node().Raft().LastIndex()
			return tr.AppendEntries("n0", target, &raft.AppendEntriesRequest{RPCHeader: hdr, Term: term(),
				Entries: []*raft.Log{{Index: last + 10, Term: term(), Type: raft.LogNoop}}, LeaderCommitIndex: last + 10}, &resp)
		}},
		{"append entries with a nil entry", func() error {
			var resp raft.AppendEntriesResponse
			return tr.AppendEntries("n0", target, &raft.AppendEntriesRequest{RPCHeader: hdr, Term: term(),
				Entries: []*raft.Log{nil}}, &resp)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.send()
			t.Logf("answered: %v", err)
			require.Eventually(t, func() bool { // the process is alive: it answers, and raft still runs
				cl, err := remoting.Dial(ctxT(t), c.Addr(), remoting.ClientOptions{})
				if err != nil {
					return false
				}
				defer cl.Close()
				_, err = cl.Invoke(ctxT(t), remoting.NewRequest(remoting.ControllerGetMetadataInfo, nil, nil))
				return err == nil && c.Node().Raft().State() != raft.Shutdown
			}, 10*time.Second, 50*time.Millisecond)
			snaps, err := raft.NewFileSnapshotStore(c.config().ControllerStorePath, 3, io.Discard)
			require.NoError(t, err)
			kept, err := snaps.List()
			require.NoError(t, err)
			for _, m := range kept { // a stranger's snapshot kept as the newest stops the node at its next start
				require.Less(t, m.Index, uint64(1<<20), "snapshot %s of %d bytes kept", m.ID, m.Size)
				_, rc, err := snaps.Open(m.ID)
				require.NoError(t, err)
				_, _, err = readSnapshot(rc, maxSnapshotBytes)
				_ = rc.Close()
				require.NoError(t, err, "snapshot %s kept but cannot be restored", m.ID)
			}
		})
	}
}

// lastLog is the index and term of c's last log entry.
func lastLog(t *testing.T, c *Controller) (index, term uint64) {
	t.Helper()
	st := c.Node().Raft().Stats()
	index, err := strconv.ParseUint(st["last_log_index"], 10, 64)
	require.NoError(t, err)
	term, err = strconv.ParseUint(st["last_log_term"], 10, 64)
	require.NoError(t, err)
	return index, term
}

// TestInboundSnapshotOfAValidStateIsInstalled: the checks on an inbound
// InstallSnapshot let a snapshot the FSM can restore through: raft
// installs it and keeps it.
func TestInboundSnapshotOfAValidStateIsInstalled(t *testing.T) {
	c := startRealController(t, testlog.New(t, "controller"))
	tr, err := raft.NewTCPTransport("127.0.0.1:0", nil, 2, 5*time.Second, io.Discard)
	require.NoError(t, err)
	defer tr.Close()
	target := raft.ServerAddress(c.Node().Addr())
	var buf bytes.Buffer
	require.NoError(t, writeSnapshot(&buf, newState()))
	data := buf.Bytes()
	conf := raft.EncodeConfiguration(raft.Configuration{Servers: []raft.Server{
		{Suffrage: raft.Voter, ID: "n0", Address: target}}})
	last, _ := lastLog(t, c)
	term := c.Node().Raft().CurrentTerm() + 1
	var resp raft.InstallSnapshotResponse
	require.NoError(t, tr.InstallSnapshot("n0", target, &raft.InstallSnapshotRequest{
		RPCHeader:       raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("leader"), Addr: []byte(tr.LocalAddr())},
		SnapshotVersion: 1, Term: term, LastLogIndex: last + 100, LastLogTerm: term, Size: int64(len(data)),
		Configuration: conf, ConfigurationIndex: 1}, &resp, bytes.NewReader(data)))
	require.True(t, resp.Success, "the snapshot is installed")
	snaps, err := raft.NewFileSnapshotStore(c.config().ControllerStorePath, 3, io.Discard)
	require.NoError(t, err)
	kept, err := snaps.List()
	require.NoError(t, err)
	require.NotEmpty(t, kept)
	require.Equal(t, last+100, kept[0].Index)
}
