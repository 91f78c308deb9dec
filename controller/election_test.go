//go:build embedded_controller

package controller

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/wire"
)

// cand is one candidate's liveness for the policy table.
type cand struct {
	id     int64
	alive  bool
	epoch  int32
	offset int64
	prio   int32
	noInfo bool
}

func liveFrom(cands []cand) *fakeLive {
	l := newFakeLive()
	for _, c := range cands {
		if !c.alive {
			continue
		}
		l.set("c", "b", c.id, c.epoch, c.offset, c.prio)
		if c.noInfo {
			delete(l.infos, liveness.Identity{ClusterName: "c", BrokerName: "b", BrokerID: c.id})
		}
	}
	return l
}

func TestDefaultElectPolicy(t *testing.T) {
	up := func(id int64, epoch int32, off int64, prio int32) cand {
		return cand{id, true, epoch, off, prio, false}
	}
	down := func(id int64) cand { return cand{id: id} }
	cases := []struct {
		name   string
		cands  []cand
		ss     []int64
		all    []int64 // nil = unclean off
		old    int64
		prefer int64
		want   int64
	}{
		{"old master alive is kept", []cand{up(1, 1, 0, 9), up(2, 9, 999, 0)}, []int64{1, 2}, nil, 1, wire.NoBrokerID, 1},
		{"sync-state set first", []cand{up(1, 1, 10, 0), up(2, 1, 50, 0), up(3, 5, 99, 0)}, []int64{1, 2}, []int64{1, 2, 3}, wire.NoBrokerID, wire.NoBrokerID, 2},
		{"dead members skipped", []cand{down(1), up(2, 1, 5, 0), up(3, 1, 9, 0)}, []int64{1, 2}, nil, 1, wire.NoBrokerID, 2},
		{"higher epoch beats offset", []cand{up(1, 2, 1, 0), up(2, 1, 100, 0)}, []int64{1, 2}, nil, wire.NoBrokerID, wire.NoBrokerID, 1},
		{"higher offset within epoch", []cand{up(1, 2, 1, 0), up(2, 2, 100, 0)}, []int64{1, 2}, nil, wire.NoBrokerID, wire.NoBrokerID, 2},
		{"offset gap beyond int32 (Java overflow)", []cand{up(1, 2, 0, 0), up(2, 2, 1<<32, 0)}, []int64{1, 2}, nil, wire.NoBrokerID, wire.NoBrokerID, 2},
		{"lower priority value wins ties", []cand{up(1, 2, 7, 5), up(2, 2, 7, 3)}, []int64{1, 2}, nil, wire.NoBrokerID, wire.NoBrokerID, 2},
		{"exact tie: lowest id", []cand{up(3, 2, 7, 3), up(2, 2, 7, 3)}, []int64{2, 3}, nil, wire.NoBrokerID, wire.NoBrokerID, 2},
		{"missing live info sorts last", []cand{{1, true, 9, 9, 0, true}, up(2, 0, 0, math.MaxInt32)}, []int64{1, 2}, nil, wire.NoBrokerID, wire.NoBrokerID, 2},
		{"nobody alive, unclean off", []cand{down(1), up(3, 1, 1, 0)}, []int64{1}, nil, 1, wire.NoBrokerID, wire.NoBrokerID},
		{"unclean pass elects outside ss", []cand{down(1), up(3, 1, 1, 0), up(4, 1, 2, 0)}, []int64{1}, []int64{1, 3, 4}, 1, wire.NoBrokerID, 4},
		{"designated alive in ss", []cand{up(1, 1, 0, 0), up(2, 1, 0, 0)}, []int64{1, 2}, nil, 1, 2, 2},
		{"designated is the old master", []cand{up(1, 1, 0, 0), up(2, 1, 0, 0)}, []int64{1, 2}, nil, 1, 1, 1},
		{"designated dead", []cand{up(1, 1, 0, 0), down(2)}, []int64{1, 2}, nil, 1, 2, wire.NoBrokerID},
		{"designated outside ss, clean", []cand{up(1, 1, 0, 0), up(3, 1, 0, 0)}, []int64{1}, nil, 1, 3, wire.NoBrokerID},
		{"designated outside ss, unclean", []cand{up(1, 1, 0, 0), up(3, 1, 0, 0)}, []int64{1}, []int64{1, 3}, 1, 3, 3},
		{"empty ss, unclean off", []cand{up(1, 1, 0, 0)}, []int64{}, nil, wire.NoBrokerID, wire.NoBrokerID, wire.NoBrokerID},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := electInput{ClusterName: "c", BrokerName: "b", SyncStateSet: c.ss, AllReplicas: c.all,
				OldMaster: c.old, Prefer: c.prefer}
			require.Equal(t, c.want, defaultElectPolicy{}.Elect(in, liveFrom(c.cands)))
		})
	}
}

func elect(f *testFSM, req wire.ElectMasterRequest, live liveness.Reader, opts electOptions) (wire.ElectMasterResponse, []event, error) {
	var resp wire.ElectMasterResponse
	var evs []event
	var err error
	f.fsm.read(func(s *state) { resp, evs, err = s.ElectMaster(req, live, opts) })
	return resp, evs, err
}

func TestElectMasterTriggers(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 3)
	live := newFakeLive().set("c", "b", 1, 0, 10, 0).set("c", "b", 2, 0, 20, 0).set("c", "b", 3, 0, 30, 0)

	_, _, err := elect(f, brokerElectRequest("c", "nope", 1), live, electOptions{})
	require.Equal(t, int32(2010), codeOf(err))

	// First election: the requester wins even though 3 has more data.
	resp, evs, err := elect(f, brokerElectRequest("c", "b", 1), live, electOptions{})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"masterBrokerId": "1", "masterAddress": addrOf(1), "masterEpoch": "1",
		"syncStateSetEpoch": "1"}, resp.ExtFields())
	f.apply(evs...)

	// Master alive: broker trigger gets 2011 with the current state.
	resp, evs, err = elect(f, brokerElectRequest("c", "b", 2), live, electOptions{})
	require.Equal(t, int32(2011), codeOf(err))
	require.Empty(t, evs)
	require.Equal(t, `{"syncStateSet":[1]}`, string(resp.BodyBytes()))

	// Master dies: the controller elects from ss {1} → nobody → 2004 + event.
	live.kill("c", "b", 1)
	resp, evs, err = elect(f, controllerElectRequest("b"), live, electOptions{})
	require.Equal(t, int32(2004), codeOf(err))
	require.Empty(t, resp.ExtFields())
	require.Len(t, evs, 1)
	f.apply(evs...)
	ss, _ := f.state().SyncState("b")
	require.Equal(t, syncStateInfo{ClusterName: "c", BrokerName: "b", MasterEpoch: 2, SyncStateSetEpoch: 1,
		SyncStateSet: []int64{1}, MasterBrokerID: wire.NoBrokerID}, ss)

	// A broker trigger with nobody electable: 2012, no event.
	_, evs, err = elect(f, brokerElectRequest("c", "b", 2), live, electOptions{})
	require.Equal(t, int32(2012), codeOf(err))
	require.Empty(t, evs)

	// Unclean election picks the best of all replicas (3).
	resp, evs, err = elect(f, controllerElectRequest("b"), live, electOptions{EnableElectUncleanMaster: true})
	require.NoError(t, err)
	require.Equal(t, int64(3), *resp.MasterBrokerID)
	require.Equal(t, int32(3), *resp.MasterEpoch)
	require.Equal(t, int32(2), *resp.SyncStateSetEpoch)
	f.apply(evs...)

	// Admin designates 2 (alive, outside ss {3}): refused when clean, elected when unclean.
	_, _, err = elect(f, adminElectRequest("c", "b", 2), live, electOptions{})
	require.Equal(t, int32(2012), codeOf(err))
	resp, evs, err = elect(f, adminElectRequest("c", "b", 2), live, electOptions{EnableElectUncleanMaster: true})
	require.NoError(t, err)
	f.apply(evs...)
	ss, _ = f.state().SyncState("b")
	require.Equal(t, syncStateInfo{ClusterName: "c", BrokerName: "b", MasterEpoch: 4, SyncStateSetEpoch: 3,
		SyncStateSet: []int64{2}, MasterBrokerID: 2}, ss)
	require.Equal(t, `{"brokerMemberGroup":{"brokerAddrs":{1:"10.0.0.1:10911",2:"10.0.0.2:10911",3:"10.0.0.3:10911"},"brokerName":"b","cluster":"c"},"syncStateSet":[2]}`,
		string(resp.BodyBytes()))
}

func TestFirstElectionOfUnregisteredIDUsesPolicy(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 2)
	live := newFakeLive().set("c", "b", 2, 0, 0, 0)
	// Java would make 9 master without an address; we fall back to the policy.
	_, _, err := elect(f, adminElectRequest("c", "b", 9), live, electOptions{})
	require.Equal(t, int32(2012), codeOf(err))
	// The controller trigger on a never-elected set with an empty ss: 2004,
	// and no "no master" entry: there is no master to clear (ours).
	_, evs, err := elect(f, controllerElectRequest("b"), live, electOptions{})
	require.Equal(t, int32(2004), codeOf(err))
	require.Empty(t, evs)
	resp, _, err := elect(f, controllerElectRequest("b"), live, electOptions{EnableElectUncleanMaster: true})
	require.NoError(t, err)
	require.Equal(t, int64(2), *resp.MasterBrokerID)
}

func TestReelectTriggers(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 2)
	registerSet(f, "c", "a", 2)
	f.apply(electMasterEvent{NewMasterElected: true, BrokerName: "b", NewMasterBrokerID: 1})
	f.apply(electMasterEvent{NewMasterElected: true, BrokerName: "a", NewMasterBrokerID: 2})
	live := newFakeLive().set("c", "b", 2, 0, 0, 0).set("c", "a", 1, 0, 0, 0)
	st := f.state()
	require.Equal(t, []string{"a", "b"}, st.BrokerSetsNeedingReelect(live))
	live.kill("c", "a", 1)
	require.Equal(t, []string{"b"}, st.BrokerSetsNeedingReelect(live), "a has nobody alive")
	require.True(t, st.NeedsElectionOnInactive(liveness.Inactive{Identity: liveness.Identity{ClusterName: "c", BrokerName: "b", BrokerID: 1}}))
	require.False(t, st.NeedsElectionOnInactive(liveness.Inactive{Identity: liveness.Identity{ClusterName: "c", BrokerName: "b", BrokerID: 2}}))
	require.False(t, st.NeedsElectionOnInactive(liveness.Inactive{Identity: liveness.Identity{ClusterName: "c", BrokerName: "x", BrokerID: 1}}))
}

func TestRoleChangeNotifyEntry(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 3)
	live := newFakeLive().set("c", "b", 1, 0, 0, 0).set("c", "b", 3, 0, 0, 0)
	resp, _, err := elect(f, brokerElectRequest("c", "b", 3), live, electOptions{})
	require.NoError(t, err)
	e, ok := newRoleChangeNotifyEntry(resp)
	require.True(t, ok)
	require.Equal(t, []notifyTarget{{1, addrOf(1)}, {3, addrOf(3)}}, e.Targets(live))
	require.Equal(t, map[string]string{"masterAddress": addrOf(3), "masterEpoch": "1", "syncStateSetEpoch": "1",
		"masterBrokerId": "3"}, e.ExtFields())
	require.Equal(t, `{"syncStateSet":[3],"syncStateSetEpoch":1}`, string(e.BodyBytes()))
	_, ok = newRoleChangeNotifyEntry(wire.ElectMasterResponse{})
	require.False(t, ok)
}

// TestElectRefusesEpochPastMaxInt32: a set whose master epoch has reached
// MaxInt32 gets no election and no "no master" entry, and an entry that
// would bump it (or the sync-state-set epoch) anyway fails in the FSM
// instead of wrapping it negative.
func TestElectRefusesEpochPastMaxInt32(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 2)
	f.apply(electMasterEvent{NewMasterElected: true, BrokerName: "b", NewMasterBrokerID: 1})
	f.fsm.mu.Lock()
	_, ss, _ := f.fsm.state.get("b")
	ss.MasterEpoch = math.MaxInt32
	f.fsm.mu.Unlock()

	live := newFakeLive().set("c", "b", 2, 0, 0, 0)
	_, evs, err := elect(f, controllerElectRequest("b"), live, electOptions{})
	require.Equal(t, int32(2012), codeOf(err))
	require.Empty(t, evs)
	res := f.apply(electMasterEvent{NewMasterElected: false, BrokerName: "b", NewMasterBrokerID: wire.NoBrokerID})
	require.ErrorIs(t, res.Err, errElectMasterFailed)
	got, _ := f.state().SyncState("b")
	require.Equal(t, int32(math.MaxInt32), got.MasterEpoch)
	require.Equal(t, int64(1), got.MasterBrokerID)

	res = f.apply(cleanBrokerDataEvent{BrokerName: "b", IDs: []int64{1}, Fence: fenceOf(&got)})
	require.ErrorIs(t, res.Err, errInvalidCleanBrokerMetadata, "cleaning the master would bump the epoch")
	f.fsm.mu.Lock()
	ss.SyncStateSetEpoch = math.MaxInt32
	f.fsm.mu.Unlock()
	res = f.apply(alterSyncStateSetEvent{BrokerName: "b", NewSyncStateSet: []int64{1, 2}})
	require.ErrorIs(t, res.Err, errAlterSyncStateSetFailed)
	got, _ = f.state().SyncState("b")
	require.Equal(t, syncStateInfo{ClusterName: "c", BrokerName: "b", MasterEpoch: math.MaxInt32,
		SyncStateSetEpoch: math.MaxInt32, SyncStateSet: []int64{1}, MasterBrokerID: 1}, got)
}
