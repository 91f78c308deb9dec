//go:build embedded_controller

package raftstore

import (
	"errors"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// TestCheckRPCPassesWhatALeaderSends: the RPCs a leader of this group
// sends pass checkRPC (heartbeats, entries of every type raft writes
// following PrevLogEntry, after a snapshot too, snapshots with their
// configuration, the old peer-list snapshot version); the ones raft
// panics on are refused with ErrBadRPC.
func TestCheckRPCPassesWhatALeaderSends(t *testing.T) {
	conf := raft.EncodeConfiguration(raft.Configuration{Servers: []raft.Server{
		{Suffrage: raft.Voter, ID: "n0", Address: "127.0.0.1:9880"}}})
	entries := func(prev uint64, types ...raft.LogType) []*raft.Log {
		var es []*raft.Log
		for i, ty := range types {
			e := &raft.Log{Index: prev + 1 + uint64(i), Term: 3, Type: ty}
			if ty == raft.LogConfiguration {
				e.Data = conf
			}
			es = append(es, e)
		}
		return es
	}
	for _, ok := range []any{
		&raft.AppendEntriesRequest{Term: 3},
		&raft.AppendEntriesRequest{Term: 3, PrevLogEntry: 0, Entries: entries(0, raft.LogConfiguration, raft.LogNoop)},
		&raft.AppendEntriesRequest{Term: 3, PrevLogEntry: 8192, PrevLogTerm: 2,
			Entries: entries(8192, raft.LogCommand, raft.LogBarrier, raft.LogCommand, raft.LogConfiguration)},
		&raft.InstallSnapshotRequest{SnapshotVersion: 1, Configuration: conf},
		&raft.InstallSnapshotRequest{SnapshotVersion: 0},
		&raft.RequestVoteRequest{}, &raft.TimeoutNowRequest{},
	} {
		require.NoError(t, checkRPC(ok, nil), "%#v", ok)
	}
	for _, bad := range []any{
		&raft.AppendEntriesRequest{Entries: []*raft.Log{nil}},
		&raft.AppendEntriesRequest{PrevLogEntry: 5, Entries: entries(6, raft.LogNoop)},
		&raft.AppendEntriesRequest{PrevLogEntry: 5, Entries: append(entries(5, raft.LogNoop), entries(7, raft.LogNoop)...)},
		&raft.AppendEntriesRequest{Entries: entries(0, raft.LogAddPeerDeprecated)},
		&raft.AppendEntriesRequest{Entries: []*raft.Log{{Index: 1, Type: raft.LogConfiguration, Data: []byte{0xc1}}}},
		&raft.InstallSnapshotRequest{SnapshotVersion: 1},
	} {
		require.ErrorIs(t, checkRPC(bad, nil), ErrBadRPC, "%#v", bad)
	}
	notEmpty := func(b []byte) error {
		if len(b) == 0 {
			return errors.New("empty")
		}
		return nil
	}
	cmds := &raft.AppendEntriesRequest{Entries: entries(0, raft.LogCommand)}
	require.NoError(t, checkRPC(cmds, nil))
	require.ErrorIs(t, checkRPC(cmds, notEmpty), ErrBadRPC)
	cmds.Entries[0].Data = []byte("x")
	require.NoError(t, checkRPC(cmds, notEmpty))
}
