//go:build embedded_controller

package controller

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// Cleaning ids out of a broker set must keep the set's invariants: the
// master stays in its sync-state set, and master epochs never go down,
// even when the sync-state half is removed and later recreated (found by
// TestSimulatedControllerSafety).

func cleanIDs(f *testFSM, live liveness.Reader, ids string) error {
	b := buildOn(f, func(s *state) (response, []event, error) {
		return s.CleanBrokerData(wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "b", BrokerControllerIDsToClean: ids}, live)
	})
	if b.err != nil {
		return b.err
	}
	res := f.apply(b.events...)
	return res.Err
}

func TestCleanMasterIDClearsMasterAndBumpsEpoch(t *testing.T) {
	f, live, inv := fenceFixture(t) // master 1 at epoch 1, set {1,2,3}
	live.kill("c", "b", 1)
	require.NoError(t, cleanIDs(f, live, "1"))
	ss := syncStateOf(t, f)
	inv.observeState(f.state())
	require.Equal(t, wire.NoBrokerID, ss.MasterBrokerID, "the cleaned master is no longer master")
	require.Equal(t, int32(2), ss.MasterEpoch, "losing the master is a new master epoch")
	require.Equal(t, []int64{2, 3}, ss.SyncStateSet)

	require.NoError(t, applyBuilt(t, f, buildOn(f, adminElect(live, 2))))
	ss = syncStateOf(t, f)
	inv.observeState(f.state())
	require.Equal(t, int64(2), ss.MasterBrokerID)
	require.Equal(t, int32(3), ss.MasterEpoch)
}

func TestRecreatedSyncStateKeepsEpochs(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 2)
	live := newFakeLive().set("c", "b", 1, 1, 0, 0).set("c", "b", 2, 1, 0, 0)
	inv := newInvariantChecker(t)
	require.NoError(t, applyBuilt(t, f, buildOn(f, func(s *state) (response, []event, error) {
		return s.ElectMaster(brokerElectRequest("c", "b", 1), live, electOptions{})
	})))
	inv.observeState(f.state()) // master 1, epoch 1
	live.kill("c", "b", 1)
	require.NoError(t, cleanIDs(f, live, "1")) // the sync-state set {1} empties: its half goes
	_, err := applyID(f, "b", nextID(f, "b"), "10.0.0.9:10911;5")
	require.NoError(t, err)
	ss := syncStateOf(t, f)
	require.GreaterOrEqual(t, ss.MasterEpoch, int32(1), "a recreated sync-state half continues the epochs")

	require.NoError(t, applyBuilt(t, f, buildOn(f, func(s *state) (response, []event, error) {
		return s.ElectMaster(brokerElectRequest("c", "b", 2), live, electOptions{})
	})), "the first broker to ask wins, as for a new set")
	ss = syncStateOf(t, f)
	inv.observeState(f.state())
	require.Equal(t, int64(2), ss.MasterBrokerID)
	require.Greater(t, ss.MasterEpoch, int32(1), "master 2 must not reuse master 1's epoch")
}

func TestRetiredSetSurvivesSnapshotAndKeepsNextID(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 2) // next id 3
	live := newFakeLive()
	require.NoError(t, cleanIDs(f, live, "1;2")) // every id goes: the whole set is removed
	_, hasR := f.state().Replicas("b")
	require.False(t, hasR)
	require.Equal(t, int64(3), nextID(f, "b"), "a cleaned set never hands out its old ids again")
	_, err := applyID(f, "b", 1, "10.0.0.1:10911;9")
	require.Equal(t, remoting.ControllerBrokerIDInvalid, codeOf(err), "old id 1 is refused")

	restored := NewFSM(nil)
	require.NoError(t, restored.Restore(io.NopCloser(bytes.NewReader(snapshotBytes(t, f.fsm)))))
	require.Equal(t, snapshotBytes(t, f.fsm), snapshotBytes(t, restored), "the tombstone is in the snapshot")

	_, err = applyID(f, "b", 3, "10.0.0.3:10911;9")
	require.NoError(t, err)
	require.Equal(t, int64(4), nextID(f, "b"))
}

// An entry with a fenced event starts with a type byte builds before 1.0.0
// do not know, so such a node stops on it instead of applying it without
// its preconditions.
func TestFencedEntryIsUnknownToThePreviousVersion(t *testing.T) {
	previous := map[eventType]bool{0: true, 1: true, 2: true, 3: true, 4: true, 5: true, 6: true, eventBatch: true}
	fenced := electMasterEvent{NewMasterElected: true, BrokerName: "b", NewMasterBrokerID: 1, Fence: &fence{}}
	for _, events := range [][]event{{fenced}, {fenced, readEvent{}}} {
		data, err := encodeEntry(events...)
		require.NoError(t, err)
		require.False(t, previous[eventType(data[0])], "first byte %d", data[0])
		require.Zero(t, eventType(data[0])&ignoreUnknownFlag, "builds before 1.0.0 must not skip it either")
		back, err := decodeEntry(data)
		require.NoError(t, err)
		require.Equal(t, events, back)
	}
	_, err := decodeEntry([]byte{byte(eventFenced), byte(eventFenced)})
	require.Error(t, err)
	_, err = decodeEntry([]byte{byte(eventFenced)})
	require.Error(t, err)
}
