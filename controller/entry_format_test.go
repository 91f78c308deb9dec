//go:build embedded_controller

package controller

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// TestClusterVersionEntryBoundary: the cluster version of an entry is
// parsed once, at decode: 1..maxClusterVersion; a node reads the entry
// only when its format reaches the version (and format 2, which brought
// the entry); below it the inbound check refuses it with errNewerFormat.
func TestClusterVersionEntryBoundary(t *testing.T) {
	for _, bad := range []string{`{"version":0}`, `{"version":-1}`, `{"version":65537}`, `{"version":"2"}`, `{`} {
		_, err := decodeEntry(append([]byte{byte(eventClusterVersion)}, bad...))
		require.Error(t, err, bad)
	}
	two, err := encodeEntry(clusterVersionEvent{Version: 2})
	require.NoError(t, err)
	three, err := encodeEntry(clusterVersionEvent{Version: 3})
	require.NoError(t, err)
	f := NewFSM(testLogger(t))
	require.NoError(t, f.checkEntry(two))
	require.ErrorIs(t, f.checkEntry(three), errNewerFormat)
	require.ErrorContains(t, f.checkEntry(three), "needs format 3")
	f.format.Store(formatV1)
	require.ErrorIs(t, f.checkEntry(two), errNewerFormat)
	other, err := encodeEntry(applyBrokerIDEvent{ClusterName: "c", BrokerName: "b", BrokerAddress: "x:1",
		NewBrokerID: 1, RegisterCheckCode: "x:1;1"})
	require.NoError(t, err)
	require.NoError(t, f.checkEntry(other))
}

// TestClusterVersionNeverLowered: an entry at or below the version (a
// retried raise, or a lower one) changes nothing.
func TestClusterVersionNeverLowered(t *testing.T) {
	f := newTestFSM(t)
	require.Equal(t, 1, f.fsm.ClusterVersion())
	require.NoError(t, f.apply(clusterVersionEvent{Version: 2}).Err)
	require.NoError(t, f.apply(clusterVersionEvent{Version: 1}).Err)
	require.NoError(t, f.apply(clusterVersionEvent{Version: 2}).Err)
	require.Equal(t, 2, f.fsm.ClusterVersion())
}

// TestSnapshotFormatFollowsClusterVersion: cluster version 1 writes
// snapshot format 2, byte for byte what v1.0.0 writes for the same state;
// 2 writes format 3, which restores with the version; every older format
// still restores.
func TestSnapshotFormatFollowsClusterVersion(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 2)
	v2 := snapshotBytes(t, f.fsm)
	require.Equal(t, byte(snapshotVersion), v2[len(snapshotMagic)])
	f.apply(clusterVersionEvent{Version: 2})
	v3 := snapshotBytes(t, f.fsm)
	require.Equal(t, []byte{snapshotVersionCV, 2}, v3[len(snapshotMagic):len(snapshotMagic)+2])
	// Format 3 is format 2 with the version inserted (and its own checksum).
	body := func(b []byte, skip int) []byte { return b[len(snapshotMagic)+skip : len(b)-4] }
	require.Equal(t, body(v2, 1), body(v3, 2))
	for _, snap := range [][]byte{v2, v3} {
		g := NewFSM(testLogger(t))
		require.NoError(t, g.Restore(io.NopCloser(bytes.NewReader(snap))))
		var st *state
		g.read(func(s *state) { st = s.Clone() })
		require.Len(t, st.BrokerNames(), 1)
	}
	g := NewFSM(testLogger(t))
	require.NoError(t, g.Restore(io.NopCloser(bytes.NewReader(v3))))
	require.Equal(t, 2, g.ClusterVersion())
}

// TestSnapshotV3ClusterVersionBoundary: a format 3 snapshot's cluster
// version is 2..maxClusterVersion (corrupt otherwise) and at most the
// node's format (errNewerFormat otherwise).
func TestSnapshotV3ClusterVersionBoundary(t *testing.T) {
	for cv, want := range map[uint64]error{0: errSnapshotCorrupt, 1: errSnapshotCorrupt, 3: errNewerFormat,
		maxClusterVersion + 1: errSnapshotCorrupt} {
		snap := craftV3(cv)
		_, _, err := readSnapshot(bytes.NewReader(snap), maxSnapshotBytes)
		require.ErrorIs(t, err, want, "cluster version %d", cv)
		require.NoError(t, NewFSM(testLogger(t)).checkSnapshot(bytes.NewReader(craftV3(2))))
	}
}

// craftV3 is an empty-state format 3 snapshot of cluster version cv.
func craftV3(cv uint64) []byte {
	b := append([]byte{}, snapshotMagic[:]...)
	b = binary.AppendUvarint(b, snapshotVersionCV)
	b = binary.AppendUvarint(b, cv)
	b = append(b, 0, 0) // no sets, no tombstones
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, crc32c))
}

// TestFormatOfMetadataReply: a 1005 reply without the field is format 1
// (v1.0.0); a field that does not parse, or an error code, is no answer.
func TestFormatOfMetadataReply(t *testing.T) {
	reply := func(code int32, ext map[string]string) *remoting.Command {
		return &remoting.Command{Code: code, ExtFields: ext}
	}
	v, err := formatOf(reply(0, map[string]string{"isLeader": "false"}))
	require.NoError(t, err)
	require.Equal(t, 1, v)
	v, err = formatOf(reply(0, map[string]string{extFormatVersion: "2"}))
	require.NoError(t, err)
	require.Equal(t, 2, v)
	for _, bad := range []string{"", "0", "x", "65537", "-1"} {
		_, err = formatOf(reply(0, map[string]string{extFormatVersion: bad}))
		require.Error(t, err, bad)
	}
	_, err = formatOf(reply(codeNoPermission, nil))
	require.Error(t, err)
}

var _ raft.FSM = (*typeRecorder)(nil)
