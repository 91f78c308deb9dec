//go:build embedded_controller

package controller

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// alterFixture: set "b" with ids 1..3, master 1 (masterEpoch 1), ss {1,2}
// at ssEpoch 2; ids 1..3 alive unless killed.
func alterFixture(t *testing.T) (*testFSM, *fakeLive) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 3)
	f.apply(electMasterEvent{NewMasterElected: true, BrokerName: "b", NewMasterBrokerID: 1})
	f.apply(alterSyncStateSetEvent{BrokerName: "b", NewSyncStateSet: []int64{2, 1}})
	live := newFakeLive().set("c", "b", 1, 1, 0, 0).set("c", "b", 2, 1, 0, 0).set("c", "b", 3, 1, 0, 0)
	return f, live
}

type alterCase struct {
	name    string
	broker  string
	master  int64
	mEpoch  int32
	set     []int64
	ssEpoch int32
	dead    int64
	code    int32
	remark  string
}

var alterCases = []alterCase{
	{"unknown set", "nope", 1, 1, []int64{1}, 2, 0, 2013, "Broker metadata is not existed"},
	{"same set", "b", 1, 1, []int64{2, 1, 2}, 2, 0, 2013,
		"The newSyncStateSet is equal with oldSyncStateSet, no needed to update syncStateSet"},
	{"not the master", "b", 2, 1, []int64{2}, 2, 0, 2002,
		"Rejecting alter syncStateSet request because the current leader is:{1}, not {2}"},
	{"absent master id", "b", wire.NoBrokerID, 1, []int64{1}, 2, 0, 2002,
		"Rejecting alter syncStateSet request because the current leader is:{1}, not {null}"},
	{"stale master epoch", "b", 1, 0, []int64{1}, 2, 0, 2000,
		"Rejecting alter syncStateSet request because the current master epoch is:{1}, not {0}"},
	{"future master epoch", "b", 1, 5, []int64{1}, 2, 0, 2000,
		"Rejecting alter syncStateSet request because the current master epoch is:{1}, not {5}"},
	{"stale ss epoch", "b", 1, 1, []int64{1}, 1, 0, 2001,
		"Rejecting alter syncStateSet request because the current syncStateSet epoch is:{2}, not {1}"},
	{"unknown replica", "b", 1, 1, []int64{1, 9}, 2, 0, 2003,
		"Rejecting alter syncStateSet request because the replicas {9} don't exist"},
	{"dead replica", "b", 1, 1, []int64{1, 2, 3}, 2, 3, 2006,
		"Rejecting alter syncStateSet request because the replicas {3} don't alive"},
	{"dead before unknown (ascending loop)", "b", 1, 1, []int64{9, 3, 1}, 2, 3, 2006,
		"Rejecting alter syncStateSet request because the replicas {3} don't alive"},
	{"drops the master", "b", 1, 1, []int64{2}, 2, 0, 2013,
		"Rejecting alter syncStateSet request because the newSyncStateSet don't contains origin leader {1}"},
	{"shrink", "b", 1, 1, []int64{1}, 2, 0, 0, ""},
	{"grow", "b", 1, 1, []int64{1, 2, 3}, 2, 0, 0, ""},
}

func TestAlterSyncStateSetFencing(t *testing.T) {
	for _, c := range alterCases {
		t.Run(c.name, func(t *testing.T) { runAlterCase(t, c) })
	}
}

func runAlterCase(t *testing.T, c alterCase) {
	f, live := alterFixture(t)
	if c.dead != 0 {
		live.kill("c", "b", c.dead)
	}
	req := wire.AlterSyncStateSetRequest{BrokerName: c.broker, MasterBrokerID: c.master, MasterEpoch: c.mEpoch,
		SyncStateSet: wire.SyncStateSet{SyncStateSet: c.set, SyncStateSetEpoch: c.ssEpoch}}
	var resp wire.AlterSyncStateSetResponse
	var evs []event
	var err error
	f.fsm.read(func(s *state) { resp, evs, err = s.AlterSyncStateSet(req, live) })
	code, remark := responseCode(err)
	require.Equal(t, c.code, code)
	require.Equal(t, c.remark, remark)
	if c.code != 0 {
		require.Empty(t, evs)
		require.Equal(t, map[string]string{"newSyncStateSetEpoch": "0"}, resp.ExtFields())
		require.Nil(t, resp.BodyBytes())
		return
	}
	require.Equal(t, int32(3), resp.NewSyncStateSetEpoch)
	want := wire.SyncStateSet{SyncStateSet: wire.NormalizeIDs(c.set), SyncStateSetEpoch: 3}
	require.Equal(t, string(want.Encode()), string(resp.BodyBytes()))
	f.apply(evs...)
	ss, _ := f.state().SyncState("b")
	require.Equal(t, wire.NormalizeIDs(c.set), ss.SyncStateSet)
	require.Equal(t, int32(3), ss.SyncStateSetEpoch)
	require.Equal(t, int32(1), ss.MasterEpoch, "alter never changes masterEpoch")
}

func TestAlterAfterReelectionIsFenced(t *testing.T) {
	f, live := alterFixture(t)
	// Master 1 dies; controller elects 2 (masterEpoch 2, ss {2}, ssEpoch 3).
	live.kill("c", "b", 1)
	var evs []event
	f.fsm.read(func(s *state) { _, evs, _ = s.ElectMaster(controllerElectRequest("b"), live, electOptions{}) })
	f.apply(evs...)
	live.set("c", "b", 1, 1, 0, 0)
	// The old master comes back and tries its stale view.
	old := wire.AlterSyncStateSetRequest{BrokerName: "b", MasterBrokerID: 1, MasterEpoch: 1,
		SyncStateSet: wire.SyncStateSet{SyncStateSet: []int64{1, 3}, SyncStateSetEpoch: 2}}
	var err error
	f.fsm.read(func(s *state) { _, _, err = s.AlterSyncStateSet(old, live) })
	require.ErrorIs(t, err, errInvalidMaster)
	// The new master with an old master epoch.
	stale := wire.AlterSyncStateSetRequest{BrokerName: "b", MasterBrokerID: 2, MasterEpoch: 1,
		SyncStateSet: wire.SyncStateSet{SyncStateSet: []int64{2, 3}, SyncStateSetEpoch: 3}}
	f.fsm.read(func(s *state) { _, _, err = s.AlterSyncStateSet(stale, live) })
	require.ErrorIs(t, err, errFencedMasterEpoch)
	require.Equal(t, int32(2000), codeOf(err))
	stale.MasterEpoch = 2
	f.fsm.read(func(s *state) { _, evs, err = s.AlterSyncStateSet(stale, live) })
	require.NoError(t, err)
	f.apply(evs...)
	ss, _ := f.state().SyncState("b")
	require.Equal(t, syncStateInfo{ClusterName: "c", BrokerName: "b", MasterEpoch: 2, SyncStateSetEpoch: 4,
		SyncStateSet: []int64{2, 3}, MasterBrokerID: 2}, ss)
}

func TestAlterWithoutMaster(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 2)
	req := wire.AlterSyncStateSetRequest{BrokerName: "b", MasterBrokerID: 1, MasterEpoch: 0,
		SyncStateSet: wire.SyncStateSet{SyncStateSet: []int64{1}}}
	var err error
	f.fsm.read(func(s *state) { _, _, err = s.AlterSyncStateSet(req, newFakeLive()) })
	_, remark := responseCode(err)
	require.Equal(t, "Rejecting alter syncStateSet request because the current leader is:{null}, not {1}", remark)
}
