//go:build embedded_controller

package raftstore

import (
	"bytes"
	"errors"
	"io"
	"strings"
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

// TestCheckedReaderVerdict: the checked reader passes every byte through;
// at the end it returns io.EOF when the check accepts and the check's
// error (ErrBadRPC) when it refuses, also when the check stops reading
// early, and gives the same answer to later reads.
func TestCheckedReaderVerdict(t *testing.T) {
	data := strings.Repeat("snapshot", 10000)
	readAll := func(r io.Reader) error { _, err := io.ReadAll(r); return err }
	refuse := func(r io.Reader) error { _ = readAll(r); return errors.New("cannot restore") }
	refuseEarly := func(r io.Reader) error { _, _ = r.Read(make([]byte, 4)); return errors.New("bad header") }
	acceptEarly := func(r io.Reader) error { _, _ = r.Read(make([]byte, 4)); return nil }

	for name, tc := range map[string]struct {
		check func(io.Reader) error
		bad   bool
	}{"accept": {readAll, false}, "refuse": {refuse, true}, "refuse early": {refuseEarly, true}, "accept early": {acceptEarly, false}} {
		r := newCheckedReader(strings.NewReader(data), tc.check)
		var got bytes.Buffer
		_, err := io.Copy(&got, r)
		_, again := r.Read(make([]byte, 8))
		if tc.bad {
			require.ErrorIs(t, err, ErrBadRPC, name)
			require.ErrorIs(t, again, ErrBadRPC, name)
			continue
		}
		require.NoError(t, err, name)
		require.Equal(t, io.EOF, again, name)
		require.Equal(t, data, got.String(), name)
	}
}

// TestCheckTermsRefusesTermsAboveMaxTerm: a term above MaxTerm in any
// field of a request is refused; MaxTerm itself passes.
func TestCheckTermsRefusesTermsAboveMaxTerm(t *testing.T) {
	for _, bad := range []any{
		&raft.AppendEntriesRequest{Term: MaxTerm + 1},
		&raft.AppendEntriesRequest{Term: 1, PrevLogTerm: MaxTerm + 1},
		&raft.AppendEntriesRequest{Term: 1, Entries: []*raft.Log{{Index: 1, Term: 1 << 63, Type: raft.LogNoop}}},
		&raft.RequestVoteRequest{Term: 1, LastLogTerm: MaxTerm + 1},
		&raft.RequestPreVoteRequest{Term: MaxTerm + 1},
		&raft.InstallSnapshotRequest{Term: MaxTerm + 1, SnapshotVersion: 1},
	} {
		require.ErrorIs(t, checkRPC(bad, nil), ErrBadRPC, "%#v", bad)
	}
	require.NoError(t, checkTerms(&raft.RequestVoteRequest{Term: MaxTerm, LastLogTerm: MaxTerm}))
}
