//go:build embedded_controller

package controller

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// encodeSnapshotV1 is the version 1 encoder of the earlier binaries, kept
// here to check that their snapshots still restore.
func encodeSnapshotV1(s *state) ([]byte, error) {
	type doc struct {
		Version    int               `json:"version"`
		BrokerSets []snapshotSet     `json:"brokerSets"`
		Retired    []snapshotRetired `json:"retired,omitempty"`
	}
	d := doc{Version: 1, BrokerSets: []snapshotSet{}}
	for _, name := range s.BrokerNames() {
		set := snapshotSet{BrokerName: name}
		if r, ok := s.replicas[name]; ok {
			set.Replicas = &snapshotReplicas{ClusterName: r.ClusterName, NextAssignBrokerID: r.NextAssignBrokerID,
				Brokers: []snapshotBroker{}}
			for _, id := range r.sortedIDs() {
				set.Replicas.Brokers = append(set.Replicas.Brokers, snapshotBroker{ID: id,
					Address: r.Brokers[id].Address, RegisterCheckCode: r.Brokers[id].RegisterCheckCode})
			}
		}
		if ss, ok := s.syncStates[name]; ok {
			set.SyncState = &snapshotSyncState{ClusterName: ss.ClusterName, MasterEpoch: ss.MasterEpoch,
				SyncStateSetEpoch: ss.SyncStateSetEpoch, SyncStateSet: wire.NormalizeIDs(ss.SyncStateSet),
				MasterBrokerID: ss.MasterBrokerID}
		}
		d.BrokerSets = append(d.BrokerSets, set)
	}
	for _, name := range s.retiredNames() {
		ep := s.retired[name]
		d.Retired = append(d.Retired, snapshotRetired{BrokerName: name, MasterEpoch: ep.MasterEpoch,
			SyncStateSetEpoch: ep.SyncStateSetEpoch, NextBrokerID: ep.NextBrokerID})
	}
	return json.Marshal(d)
}

func restoreBytes(t testing.TB, data []byte) (*state, error) {
	t.Helper()
	g := NewFSM(testLogger(t))
	err := g.Restore(io.NopCloser(bytes.NewReader(data)))
	var st *state
	g.read(func(s *state) { st = s.Clone() })
	return st, err
}

// TestSnapshotV1StillRestores: an earlier binary's snapshot of the
// scripted log, of an empty broker name and of half-removed sets restores
// to the state it was taken from.
func TestSnapshotV1StillRestores(t *testing.T) {
	f := scriptedLog(t)
	registerSet(f, "", "", 2)
	f.apply(cleanBrokerDataEvent{BrokerName: "b-z", IDs: []int64{1, 2, 3}, Fence: &fence{}})
	want := f.state()
	data, err := encodeSnapshotV1(want)
	require.NoError(t, err)
	got, err := restoreBytes(t, data)
	require.NoError(t, err)
	require.Equal(t, want, got)
}

// TestSnapshotV1DuplicatesMerge: a version 1 snapshot naming a set twice
// (b\xff and b\xfe both became b\uFFFD in JSON) restores: each half of the
// later entry replaces the earlier one, on every node alike.
func TestSnapshotV1DuplicatesMerge(t *testing.T) {
	doc := `{"version":1,"brokerSets":[` +
		`{"brokerName":"b\ufffd","replicas":{"clusterName":"c","nextAssignBrokerId":2,"brokers":[{"id":1,"address":"a:1"}]},` +
		`"syncState":{"clusterName":"c","masterEpoch":1,"syncStateSetEpoch":1,"syncStateSet":[1],"masterBrokerId":1}},` +
		`{"brokerName":"b\ufffd","replicas":{"clusterName":"c","nextAssignBrokerId":3,"brokers":[{"id":2,"address":"a:2"}]}},` +
		`{"brokerName":"","syncState":{"clusterName":"","syncStateSet":null,"masterBrokerId":-1}}],` +
		`"retired":[{"brokerName":"x","masterEpoch":4,"syncStateSetEpoch":5}]}`
	got, err := restoreBytes(t, []byte(doc))
	require.NoError(t, err)
	r, ok := got.Replicas("b\uFFFD")
	require.True(t, ok)
	require.Equal(t, int64(3), r.NextAssignBrokerID, "the later replica half is kept")
	require.Equal(t, []int64{2}, r.sortedIDs())
	ss, ok := got.SyncState("b\uFFFD")
	require.True(t, ok, "the earlier sync-state half is kept: the later entry has none")
	require.Equal(t, int64(1), ss.MasterBrokerID)
	ss, ok = got.SyncState("")
	require.True(t, ok)
	require.Equal(t, []int64{}, ss.SyncStateSet)
	require.Equal(t, retiredSet{MasterEpoch: 4, SyncStateSetEpoch: 5}, got.retired["x"])
}
