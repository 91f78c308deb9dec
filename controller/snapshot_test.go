//go:build embedded_controller

package controller

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireRoundTrip snapshots f, restores the bytes into a fresh FSM and
// requires the same state and the same bytes again.
func requireRoundTrip(t testing.TB, f *FSM) *FSM {
	t.Helper()
	data := snapshotBytes(t, f)
	g := NewFSM(testLogger(t))
	require.NoError(t, g.Restore(io.NopCloser(bytes.NewReader(data))))
	var want, got *state
	f.read(func(s *state) { want = s.Clone() })
	g.read(func(s *state) { got = s.Clone() })
	require.Equal(t, want, got, "restored state")
	require.True(t, bytes.Equal(data, snapshotBytes(t, g)), "re-encoding gives the same bytes")
	// Apply's bound checks read the accounted size: a restored node must
	// count what a node that applied the log keeps.
	var kept, counted int64
	f.read(func(s *state) { kept = s.bytes() })
	g.read(func(s *state) { counted = s.bytes() })
	require.Equal(t, kept, counted, "restored accounted size")
	return g
}

// TestAttackEmptyBrokerNameSnapshot: APPLY_BROKER_ID with an empty
// brokerName was answered 0 and stored by binaries writing snapshot format 1; the snapshot
// of that state must restore, or no node can start from it.
func TestAttackEmptyBrokerNameSnapshot(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "", "", 2)
	registerSet(f, "c", "b", 1)
	f.apply(electMasterEvent{NewMasterElected: true, BrokerName: "", NewMasterBrokerID: 2})
	requireRoundTrip(t, f.fsm)
}

// TestAttackInvalidUTF8NamesSnapshot: names are bytes; two sets whose
// names differ only in invalid UTF-8 stay two sets, and every string
// survives byte for byte.
func TestAttackInvalidUTF8NamesSnapshot(t *testing.T) {
	f := newTestFSM(t)
	for _, name := range []string{"b\xff", "b\xfe", "b\uFFFD", "\x00", "<&>\u2028"} {
		require.NoError(t, f.fsm.applyEvents(applyBrokerIDEvent{ClusterName: "c\xff" + name, BrokerName: name,
			BrokerAddress: "\xfe" + name, NewBrokerID: 1, RegisterCheckCode: name + "\xff"}))
	}
	require.NoError(t, f.fsm.applyEvents(electMasterEvent{NewMasterElected: true, BrokerName: "b\xff", NewMasterBrokerID: 1}))
	g := requireRoundTrip(t, f.fsm)
	g.read(func(s *state) { require.Len(t, s.BrokerNames(), 5) })
}

// TestSnapshotHugeNames: a 4 MiB name round trips.
func TestSnapshotHugeNames(t *testing.T) {
	f := newTestFSM(t)
	big := strings.Repeat("n", 4<<20)
	f.apply(applyBrokerIDEvent{ClusterName: big, BrokerName: big, BrokerAddress: big, NewBrokerID: 1, RegisterCheckCode: big})
	requireRoundTrip(t, f.fsm)
}

// TestRestoreCeiling: a snapshot one byte over the ceiling is refused, of
// either version; one at the ceiling is read.
func TestRestoreCeiling(t *testing.T) {
	f := scriptedLog(t)
	v2 := snapshotBytes(t, f.fsm)
	v1, err := encodeSnapshotV1(f.state())
	require.NoError(t, err)
	for _, data := range [][]byte{v2, v1} {
		_, stats, err := readSnapshot(bytes.NewReader(data), int64(len(data)))
		require.NoError(t, err)
		require.Equal(t, int64(len(data)), stats.Bytes)
		_, _, err = readSnapshot(bytes.NewReader(data), int64(len(data))-1)
		require.ErrorIs(t, err, errSnapshotTooLarge)
	}
}

// chunkSink records the largest single write.
type chunkSink struct {
	countSink
	largest int
}

func (s *chunkSink) Write(p []byte) (int, error) {
	s.largest = max(s.largest, len(p))
	return s.countSink.Write(p)
}

// TestPersistStreams: the 80 MiB hostile state reaches the sink in
// buffer-sized writes, not as one buffered copy.
func TestPersistStreams(t *testing.T) {
	f := hostileState(t)
	snap, err := f.Snapshot()
	require.NoError(t, err)
	sink := &chunkSink{}
	require.NoError(t, snap.Persist(sink))
	require.Greater(t, sink.n, int64(80<<20))
	require.LessOrEqual(t, sink.largest, 4<<20+snapshotBufSize, "no write larger than one name plus the buffer")
	t.Logf("snapshot %d bytes, largest write %d", sink.n, sink.largest)
}
