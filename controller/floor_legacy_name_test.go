//go:build embedded_controller

package controller

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// electTimes elects id 1 of name n times (each a "no master" then id 1), so
// its master epoch climbs by 2n.
func electTimes(t *testing.T, f *testFSM, lim stateLimits, name string, n int) {
	t.Helper()
	live := newFakeLive().set("c", name, 1, 0, 0, 0)
	for i := 0; i < n; i++ {
		require.NoError(t, buildApply(t, f, func(s *state) ([]event, error) {
			_, evs, err := s.ElectMaster(wire.ElectMasterRequest{BrokerName: name, BrokerID: wire.NoBrokerID}, newFakeLive(), electOptions{})
			if codeOf(err) == codeOf(&domainError{Kind: errMasterNotAvailable}) {
				err = nil
			}
			return evs, err
		}))
		require.NoError(t, buildApply(t, f, func(s *state) ([]event, error) {
			_, evs, err := s.ElectMaster(wire.ElectMasterRequest{ClusterName: "c", BrokerName: name, BrokerID: 1}, live, electOptions{})
			return evs, err
		}))
	}
}

// TestAttackLegacyFloorNamedSetCannotLowerFloor: an earlier version stored
// any name, so a version 1 snapshot (or an old log) may hold a live set
// named floorName ("\x00folded"), planted by a stranger. After the upgrade
// the tombstones are folded into the floor under that same key; cleaning
// the planted set (anyone may: parseSetName accepts a stored name) must not
// lower the floor, or every folded set comes back with master epochs and
// ids it already used (a master epoch reused by another master is a log
// divergence on the brokers).
func TestAttackLegacyFloorNamedSetCannotLowerFloor(t *testing.T) {
	// The old binary's state: the planted set, epoch 1, one id.
	old := newTestFSM(t)
	old.apply(applyBrokerIDEvent{ClusterName: "c", BrokerName: floorName, BrokerAddress: "10.9.9.9:10911",
		NewBrokerID: 1, RegisterCheckCode: "10.9.9.9:10911;1"})
	old.apply(electMasterEvent{NewMasterElected: true, BrokerName: floorName, NewMasterBrokerID: 1})
	v1, err := encodeSnapshotV1(old.state())
	require.NoError(t, err)

	f := newTestFSM(t)
	require.NoError(t, f.fsm.Restore(io.NopCloser(bytes.NewReader(v1))))
	lim := defaultLimits
	_, err = registerNew(t, f, lim, "c", "broker-real", "10.0.0.1:10911")
	require.NoError(t, err)
	electTimes(t, f, lim, "broker-real", 5)
	real, ok := f.state().SyncState("broker-real")
	require.True(t, ok)
	require.NoError(t, cleanWhole(t, f, "broker-real"))
	floodTombstones(t, f, lim, maxRetiredSets)
	floor := f.state().retired[floorName]
	require.GreaterOrEqual(t, floor.MasterEpoch, real.MasterEpoch, "the fold kept the real set's epoch")
	t.Logf("folded: floor %+v, broker-real had master epoch %d", floor, real.MasterEpoch)

	require.NoError(t, cleanWhole(t, f, floorName), "anyone may clean the planted set")
	after := f.state().retired[floorName]
	t.Logf("after cleaning the planted set: floor %+v", after)
	require.GreaterOrEqual(t, after.MasterEpoch, floor.MasterEpoch, "the floor's master epoch went down")
	require.GreaterOrEqual(t, after.SyncStateSetEpoch, floor.SyncStateSetEpoch, "the floor's sync-state epoch went down")
	require.GreaterOrEqual(t, after.NextBrokerID, floor.NextBrokerID, "the floor's next id went down")

	_, err = registerNew(t, f, lim, "c", "broker-real", "10.0.0.1:10911")
	require.NoError(t, err)
	again, ok := f.state().SyncState("broker-real")
	require.True(t, ok)
	require.GreaterOrEqual(t, again.MasterEpoch, real.MasterEpoch, "the recreated set reuses master epochs")
	requireRoundTrip(t, f.fsm)
}
