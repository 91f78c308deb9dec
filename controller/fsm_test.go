//go:build embedded_controller

package controller

import (
	"bytes"
	"io"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// scriptedLog drives the command builders on one FSM the way a leader
// would, and returns that FSM with the entries it appended.
func scriptedLog(t *testing.T) *testFSM {
	f := newTestFSM(t)
	live := newFakeLive()
	run := func(events []event, err error) {
		t.Helper()
		if len(events) > 0 {
			f.apply(events...)
		}
	}
	for _, name := range []string{"b-z", "b-a", "b-m"} {
		for id := int64(1); id <= 3; id++ {
			var evs []event
			f.fsm.read(func(s *state) {
				_, evs, _ = s.ApplyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: "c", BrokerName: name,
					AppliedBrokerID: id, RegisterCheckCode: addrOf(id) + ";7"})
			})
			run(evs, nil)
			live.set("c", name, id, 1, 100*id, 5)
		}
		var evs []event
		f.fsm.read(func(s *state) { _, evs, _ = s.ElectMaster(brokerElectRequest("c", name, 2), live, electOptions{}) })
		run(evs, nil)
		f.fsm.read(func(s *state) {
			_, evs, _ = s.AlterSyncStateSet(wire.AlterSyncStateSetRequest{BrokerName: name, MasterBrokerID: 2, MasterEpoch: 1,
				SyncStateSet: wire.SyncStateSet{SyncStateSet: []int64{3, 2, 1}, SyncStateSetEpoch: 1}}, live)
		})
		run(evs, nil)
	}
	live.kill("c", "b-m", 1).kill("c", "b-m", 2).kill("c", "b-m", 3)
	var evs []event
	f.fsm.read(func(s *state) { _, evs, _ = s.ElectMaster(controllerElectRequest("b-m"), live, electOptions{}) })
	run(evs, nil)
	f.fsm.read(func(s *state) {
		_, evs, _ = s.CleanBrokerData(wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "b-z",
			BrokerControllerIDsToClean: "3"}, newFakeLive())
	})
	run(evs, nil)
	f.apply(updateBrokerAddressEvent{ClusterName: "c", BrokerName: "b-a", BrokerAddress: "x:1", BrokerID: 1},
		electMasterEvent{BrokerName: "b-a"})
	return f
}

func TestFSMDeterminism(t *testing.T) {
	a := scriptedLog(t)
	b := newTestFSM(t)
	for _, entry := range a.log {
		events, err := decodeEntry(entry)
		require.NoError(t, err)
		b.apply(events...)
	}
	snapA, snapB := snapshotBytes(t, a.fsm), snapshotBytes(t, b.fsm)
	require.Equal(t, string(snapA), string(snapB))
	require.Equal(t, a.state(), b.state())

	c := newTestFSM(t)
	require.NoError(t, c.fsm.Restore(io.NopCloser(bytes.NewReader(snapA))))
	require.Equal(t, string(snapA), string(snapshotBytes(t, c.fsm)))
	require.Equal(t, a.state(), c.state())

	ss, ok := a.state().SyncState("b-m")
	require.True(t, ok)
	require.Equal(t, wire.NoBrokerID, ss.MasterBrokerID)
	require.Equal(t, int32(2), ss.MasterEpoch, "failed controller election bumps masterEpoch")
	require.Equal(t, []int64{1, 2, 3}, ss.SyncStateSet, "ss kept")
	ss, _ = a.state().SyncState("b-z")
	require.Equal(t, []int64{1, 2}, ss.SyncStateSet, "cleaned id leaves ss without epoch change")
	require.Equal(t, int32(2), ss.SyncStateSetEpoch)
}

func TestFSMApplyCorruptEntryPanics(t *testing.T) {
	f := NewFSM(testLogger(t))
	for name, data := range map[string][]byte{
		"empty":         {},
		"unknown type":  {42, '{', '}'},
		"bad json":      {byte(eventElectMaster), '{'},
		"bad batch":     {byte(eventBatch), byte(eventElectMaster), 200},
		"nested batch":  {byte(eventBatch), byte(eventBatch), 0},
		"truncated len": {byte(eventBatch), byte(eventElectMaster), 5, '{'},
	} {
		t.Run(name, func(t *testing.T) {
			require.Panics(t, func() { f.Apply(&raft.Log{Index: 1, Type: raft.LogCommand, Data: data}) })
		})
	}
}

func TestFSMApplyEntries(t *testing.T) {
	f := newTestFSM(t)
	require.Nil(t, f.fsm.Apply(&raft.Log{Type: raft.LogBarrier}))
	res := f.apply() // noop entry
	require.Equal(t, 0, res.Events)
	skip := f.fsm.Apply(&raft.Log{Index: 9, Type: raft.LogCommand, Data: []byte{byte(ignoreUnknownFlag | 99), 'x'}})
	require.Equal(t, &applyResult{Index: 9}, skip)

	res = f.apply(applyBrokerIDEvent{ClusterName: "c", BrokerName: "b", BrokerAddress: "a:1", NewBrokerID: 1},
		applyBrokerIDEvent{ClusterName: "c", BrokerName: "b", BrokerAddress: "a:2", NewBrokerID: 2}, readEvent{})
	require.Equal(t, 3, res.Events)
	require.NoError(t, res.Err)
	r, ok := f.state().Replicas("b")
	require.True(t, ok)
	require.Equal(t, int64(3), r.NextAssignBrokerID)

	res = f.apply(electMasterEvent{NewMasterElected: true, BrokerName: "nope", NewMasterBrokerID: 1})
	require.ErrorIs(t, res.Err, errBrokerMetadataNotExist, "business errors come back as the Apply response")
	res = f.apply(updateBrokerAddressEvent{BrokerName: "b", BrokerID: 7, BrokerAddress: "z"})
	require.ErrorIs(t, res.Err, errBrokerNeedToBeRegistered)
}

func TestSnapshotPersistCancelsOnError(t *testing.T) {
	f := scriptedLog(t)
	snap, err := f.fsm.Snapshot()
	require.NoError(t, err)
	sink := &memSink{failWrite: true}
	require.Error(t, snap.Persist(sink))
	require.True(t, sink.cancelled)
	require.False(t, sink.closed)
}

func TestSnapshotIsolatedFromLaterApplies(t *testing.T) {
	f := scriptedLog(t)
	before := snapshotBytes(t, f.fsm)
	snap, err := f.fsm.Snapshot()
	require.NoError(t, err)
	f.apply(cleanBrokerDataEvent{BrokerName: "b-a"})
	sink := &memSink{}
	require.NoError(t, snap.Persist(sink))
	require.Equal(t, string(before), sink.buf.String())
}

func TestRestoreRejectsBadSnapshot(t *testing.T) {
	f := scriptedLog(t)
	before := snapshotBytes(t, f.fsm)
	flip := bytes.Clone(before)
	flip[len(flip)/2] ^= 1
	for _, bad := range []string{``, `{`, `{"version":2,"brokerSets":[]}`, `{"brokerSets":[]}`,
		`{"version":1,"brokerSets":{}}`, `{"version":1} {}`, string(flip), string(before[:len(before)-1]),
		string(before) + "x", "\x89RCS\x03", "\x89RCS\x02\xff\xff\xff\xff\x0f"} {
		require.Error(t, f.fsm.Restore(io.NopCloser(bytes.NewBufferString(bad))), "%q", bad)
	}
	require.Equal(t, string(before), string(snapshotBytes(t, f.fsm)), "failed restore leaves state untouched")
}

func TestHalfRemovedSetSurvivesSnapshot(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 2)
	// Never elected: ss is empty, so cleaning id 1 drops the sync-state half.
	f.apply(cleanBrokerDataEvent{BrokerName: "b", IDs: []int64{1}})
	st := f.state()
	_, hasR := st.Replicas("b")
	_, hasS := st.SyncState("b")
	require.True(t, hasR)
	require.False(t, hasS)
	g := newTestFSM(t)
	require.NoError(t, g.fsm.Restore(io.NopCloser(bytes.NewReader(snapshotBytes(t, f.fsm)))))
	require.Equal(t, st, g.state())
	// A new id re-creates both halves afresh.
	f.apply(applyBrokerIDEvent{ClusterName: "c", BrokerName: "b", BrokerAddress: "n:1", NewBrokerID: 5})
	r, _ := f.state().Replicas("b")
	require.Equal(t, []int64{5}, r.sortedIDs())
	require.Equal(t, int64(2), r.NextAssignBrokerID)
}
