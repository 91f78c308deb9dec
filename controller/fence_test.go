//go:build embedded_controller

package controller

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// A request built on a state that a later-applied entry has moved past must
// be rejected by Apply, without changing the state (docs/controller.md
// section 2.4).

// built is one command computed by a builder on some state.
type built struct {
	resp   response
	events []event
	err    error
}

// buildOn runs a builder on the current state of f.
func buildOn(f *testFSM, fn buildFunc) built {
	var b built
	f.fsm.read(func(s *state) { b.resp, b.events, b.err = fn(s) })
	return b
}

// applyBuilt applies b's events as one entry and returns the error the
// caller gets: the builder's error unless the entry was rejected.
func applyBuilt(t *testing.T, f *testFSM, b built) error {
	t.Helper()
	require.NotEmpty(t, b.events)
	if res := f.apply(b.events...); res.Err != nil {
		return res.Err
	}
	return b.err
}

// fenceFixture: set "b" ids 1..3 all alive, master 1 at master epoch 1,
// sync-state set {1,2,3} at sync-state-set epoch 2.
func fenceFixture(t *testing.T) (*testFSM, *fakeLive, *invariantChecker) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 3)
	f.apply(electMasterEvent{NewMasterElected: true, BrokerName: "b", NewMasterBrokerID: 1})
	f.apply(alterSyncStateSetEvent{BrokerName: "b", NewSyncStateSet: []int64{1, 2, 3}})
	live := newFakeLive().set("c", "b", 1, 1, 0, 0).set("c", "b", 2, 1, 0, 0).set("c", "b", 3, 1, 0, 0)
	inv := newInvariantChecker(t)
	inv.observeState(f.state())
	return f, live, inv
}

func adminElect(live liveness.Reader, id int64) buildFunc {
	return func(s *state) (response, []event, error) {
		return s.ElectMaster(adminElectRequest("c", "b", id), live, electOptions{})
	}
}

func alterTo(live liveness.Reader, master int64, mEpoch, ssEpoch int32, set ...int64) buildFunc {
	return func(s *state) (response, []event, error) {
		return s.AlterSyncStateSet(wire.AlterSyncStateSetRequest{BrokerName: "b", MasterBrokerID: master, MasterEpoch: mEpoch,
			SyncStateSet: wire.SyncStateSet{SyncStateSet: set, SyncStateSetEpoch: ssEpoch}}, live)
	}
}

func syncStateOf(t *testing.T, f *testFSM) syncStateInfo {
	t.Helper()
	ss, ok := f.state().SyncState("b")
	require.True(t, ok)
	return ss
}

func TestFencedAlterAfterElection(t *testing.T) {
	f, live, inv := fenceFixture(t)
	elect := buildOn(f, adminElect(live, 2))
	alter := buildOn(f, alterTo(live, 1, 1, 2, 1, 3))
	require.NoError(t, elect.err)
	require.NoError(t, alter.err)

	require.NoError(t, applyBuilt(t, f, elect))
	inv.observeState(f.state())
	inv.observeElectReply("b", elect.resp.(wire.ElectMasterResponse), nil)
	err := applyBuilt(t, f, alter)
	require.Equal(t, remoting.ControllerFencedMasterEpoch, codeOf(err), "alter built on master epoch 1 after the election: %v", err)
	inv.observeState(f.state())
	ss := syncStateOf(t, f)
	require.Equal(t, int64(2), ss.MasterBrokerID)
	require.Equal(t, []int64{2}, ss.SyncStateSet)
	require.Equal(t, int32(2), ss.MasterEpoch)
	require.Equal(t, int32(3), ss.SyncStateSetEpoch)
}

func TestFencedElectionAfterAlter(t *testing.T) {
	f, live, inv := fenceFixture(t)
	elect := buildOn(f, adminElect(live, 2))
	alter := buildOn(f, alterTo(live, 1, 1, 2, 1, 3))

	require.NoError(t, applyBuilt(t, f, alter))
	inv.observeState(f.state())
	err := applyBuilt(t, f, elect)
	require.Equal(t, remoting.ControllerFencedSyncStateSetEpoch, codeOf(err), "election built on the old set: %v", err)
	if err == nil {
		inv.observeElectReply("b", elect.resp.(wire.ElectMasterResponse), nil)
	}
	inv.observeState(f.state())
	ss := syncStateOf(t, f)
	require.Equal(t, int64(1), ss.MasterBrokerID)
	require.Equal(t, []int64{1, 3}, ss.SyncStateSet)
	require.Equal(t, int32(1), ss.MasterEpoch)
}

// Two elections built on one state: the second reply would name broker 3
// master of the epoch the log gives to broker 2.
func TestFencedSecondElectionOnSameState(t *testing.T) {
	f, live, inv := fenceFixture(t)
	first := buildOn(f, adminElect(live, 2))
	second := buildOn(f, adminElect(live, 3))
	for _, b := range []built{first, second} {
		err := applyBuilt(t, f, b)
		inv.observeState(f.state())
		inv.observeElectReply("b", b.resp.(wire.ElectMasterResponse), err)
	}
	ss := syncStateOf(t, f)
	require.Equal(t, int64(2), ss.MasterBrokerID)
	require.Equal(t, int32(2), ss.MasterEpoch)
}

// A controller-triggered "no master" built before an election must not
// wipe the master that election installed.
func TestFencedNoMasterAfterElection(t *testing.T) {
	f, live, inv := fenceFixture(t)
	dead := newFakeLive()
	noMaster := buildOn(f, func(s *state) (response, []event, error) {
		return s.ElectMaster(controllerElectRequest("b"), dead, electOptions{})
	})
	require.Equal(t, remoting.ControllerMasterNotAvailable, codeOf(noMaster.err))
	require.NoError(t, applyBuilt(t, f, buildOn(f, adminElect(live, 3))))
	err := applyBuilt(t, f, noMaster)
	require.Equal(t, remoting.ControllerFencedMasterEpoch, codeOf(err))
	inv.observeState(f.state())
	require.Equal(t, int64(3), syncStateOf(t, f).MasterBrokerID)
}

// A blank clean is only allowed without a master; one built before a first
// election must not remove the set that now has a master.
func TestFencedCleanAfterElection(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 2)
	live := newFakeLive().set("c", "b", 1, 1, 0, 0)
	clean := buildOn(f, func(s *state) (response, []event, error) {
		return s.CleanBrokerData(wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "b"}, newFakeLive())
	})
	require.NoError(t, clean.err)
	require.NoError(t, applyBuilt(t, f, buildOn(f, func(s *state) (response, []event, error) {
		return s.ElectMaster(brokerElectRequest("c", "b", 1), live, electOptions{})
	})))
	err := applyBuilt(t, f, clean)
	require.Equal(t, remoting.ControllerFencedMasterEpoch, codeOf(err))
	require.Equal(t, int64(1), syncStateOf(t, f).MasterBrokerID)
}

// Two first registrations of id 1 with different check codes: only the
// first broker may get the id.
func TestFencedApplyBrokerIDTwice(t *testing.T) {
	f := newTestFSM(t)
	apply := func(code string) built {
		return buildOn(f, func(s *state) (response, []event, error) {
			return s.ApplyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: "c", BrokerName: "b", AppliedBrokerID: 1,
				RegisterCheckCode: code})
		})
	}
	a, b := apply("a:1;1"), apply("b:1;1")
	require.NoError(t, applyBuilt(t, f, a))
	err := applyBuilt(t, f, b)
	require.Equal(t, remoting.ControllerBrokerIDInvalid, codeOf(err))
	r, _ := f.state().Replicas("b")
	require.Equal(t, "a:1;1", r.Brokers[1].RegisterCheckCode)
	// An idempotent retry of the winner is still accepted.
	require.NoError(t, applyBuilt(t, f, apply("a:1;1")))
}

// A batch entry is all-or-nothing: a stale event rejects the whole entry.
func TestFencedBatchIsAllOrNothing(t *testing.T) {
	f, live, _ := fenceFixture(t)
	alter := buildOn(f, alterTo(live, 1, 1, 2, 1, 3))
	elect := buildOn(f, adminElect(live, 2))
	before := f.state()
	res := f.apply(append(append([]event{}, elect.events...), alter.events...)...)
	require.Equal(t, remoting.ControllerFencedMasterEpoch, codeOf(res.Err))
	require.Equal(t, before, f.state(), "a rejected batch changes nothing")
}

// Unfenced entries (written before 1.0.0) carry no preconditions and must
// replay exactly as before, even where the fenced version would refuse.
func TestUnfencedEntriesReplayAsBefore(t *testing.T) {
	f, _, _ := fenceFixture(t)
	raw := func(t eventType, js string) []byte { return append([]byte{byte(t)}, js...) }
	for i, entry := range [][]byte{
		raw(eventElectMaster, `{"newMasterElected":true,"brokerName":"b","newMasterBrokerId":2}`),
		raw(eventAlterSyncStateSet, `{"brokerName":"b","newSyncStateSet":[1,3]}`),
		raw(eventApplyBrokerID, `{"clusterName":"c","brokerName":"b","brokerAddress":"x:1","newBrokerId":1,"registerCheckCode":"x:1;2"}`),
	} {
		events, err := decodeEntry(entry)
		require.NoError(t, err)
		require.False(t, anyFenced(events), "entry %d", i)
		require.NoError(t, f.apply(events...).Err)
	}
	ss := syncStateOf(t, f)
	require.Equal(t, int64(2), ss.MasterBrokerID)
	require.Equal(t, []int64{1, 3}, ss.SyncStateSet, "the old semantics, kept for replay")
	r, _ := f.state().Replicas("b")
	require.Equal(t, addrOf(1)+";1", r.Brokers[1].RegisterCheckCode, "an unfenced used id is ignored silently")
}

func TestFencedEventsRoundTrip(t *testing.T) {
	fc := &fence{MasterEpoch: 3, SyncStateSetEpoch: 4, MasterBrokerID: wire.NoBrokerID}
	for _, ev := range []event{
		alterSyncStateSetEvent{BrokerName: "b", NewSyncStateSet: []int64{1}, Fence: fc},
		electMasterEvent{BrokerName: "b", NewMasterBrokerID: wire.NoBrokerID, Fence: fc},
		cleanBrokerDataEvent{BrokerName: "b", Fence: fc},
		applyBrokerIDEvent{BrokerName: "b", NewBrokerID: 1, RegisterCheckCode: "a;1", Fenced: true},
	} {
		data, err := encodeEntry(ev)
		require.NoError(t, err)
		require.Contains(t, string(data), "fence")
		back, err := decodeEntry(data)
		require.NoError(t, err)
		require.Equal(t, []event{ev}, back)
	}
}

// Cleaning the master of {1,2} drops the sync-state half
// but keeps replica 2; a new id must join broker 2, not replace it, and id
// 2 must never be handed out again.
func TestApplyBrokerIDKeepsReplicasOfHalfRemovedSet(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 2)
	live := newFakeLive().set("c", "b", 1, 1, 0, 0).set("c", "b", 2, 1, 0, 0)
	require.NoError(t, applyBuilt(t, f, buildOn(f, func(s *state) (response, []event, error) {
		return s.ElectMaster(brokerElectRequest("c", "b", 1), live, electOptions{})
	})))
	live.kill("c", "b", 1)
	require.NoError(t, applyBuilt(t, f, buildOn(f, func(s *state) (response, []event, error) {
		return s.CleanBrokerData(wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "b", BrokerControllerIDsToClean: "1"}, live)
	})))
	_, hasSS := f.state().SyncState("b")
	require.False(t, hasSS, "the sync-state half is gone")

	next := nextID(f, "b")
	require.Equal(t, int64(3), next)
	_, err := applyID(f, "b", next, "10.0.0.9:10911;5")
	require.NoError(t, err)
	r, ok := f.state().Replicas("b")
	require.True(t, ok)
	require.Equal(t, []int64{2, 3}, r.sortedIDs(), "live broker 2 is kept")
	require.Equal(t, int64(4), nextID(f, "b"), "NextAssignBrokerID never goes down")
	_, err = applyID(f, "b", 2, "10.0.0.8:10911;6")
	require.Equal(t, remoting.ControllerBrokerIDInvalid, codeOf(err), "id 2 is still taken")
	_, hasSS = f.state().SyncState("b")
	require.True(t, hasSS, "the set exists again")
}
