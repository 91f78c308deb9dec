//go:build embedded_controller

package controller

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// buildApply runs a builder on the FSM's state as the leader's scheduler
// does and applies its events as one entry; it returns the builder's error
// or the entry's.
func buildApply(t *testing.T, f *testFSM, build func(s *state) ([]event, error)) error {
	t.Helper()
	var evs []event
	var err error
	f.fsm.read(func(s *state) { evs, err = build(s) })
	if err != nil || len(evs) == 0 {
		return err
	}
	return f.apply(evs...).Err
}

// registerNew asks 1012 for the next id of name and applies it with 1013.
func registerNew(t *testing.T, f *testFSM, lim stateLimits, cluster, name, addr string) (int64, error) {
	t.Helper()
	var id int64
	f.fsm.read(func(s *state) {
		id = s.GetNextBrokerID(wire.GetNextBrokerIDRequest{ClusterName: cluster, BrokerName: name}).NextBrokerID
	})
	return id, buildApply(t, f, func(s *state) ([]event, error) {
		_, evs, err := s.applyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: cluster, BrokerName: name,
			AppliedBrokerID: id, RegisterCheckCode: addr + ";1"}, lim)
		return evs, err
	})
}

func cleanWhole(t *testing.T, f *testFSM, name string) error {
	t.Helper()
	return buildApply(t, f, func(s *state) ([]event, error) {
		_, evs, err := s.CleanBrokerData(wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: name,
			IsCleanLivingBroker: true}, newFakeLive())
		return evs, err
	})
}

// floodTombstones creates and cleans n sets with 120-byte names, as a
// stranger may with ACL off; it returns the names cleaned.
func floodTombstones(t *testing.T, f *testFSM, lim stateLimits, n int) []string {
	t.Helper()
	names := make([]string, 0, n)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%0120d", i)
		_, err := registerNew(t, f, lim, "c", name, "10.1.1.1:10911")
		require.NoError(t, err, "set %d of the flood", i)
		require.NoError(t, cleanWhole(t, f, name))
		names = append(names, name)
	}
	return names
}

// TestAttackTombstonesLockNewSetsOut (bounds): a stranger who may
// create and clean sets (ACL off) filled controllerMaxStateBytes with the
// tombstones tombstone.go keeps for every cleaned set. No request removes a
// tombstone, so no new broker set could ever be registered again, even with
// no set stored at all. The tombstones are now folded into one when a new
// set needs their room, keeping what they exist for: a recreated set
// continues from epochs and ids at least as high as those it had.
func TestAttackTombstonesLockNewSetsOut(t *testing.T) {
	f := newTestFSM(t)
	lim := defaultLimits
	lim.StateBytes = 64 << 10
	// A real set that had masters, then was cleaned: its tombstone holds
	// epochs that a recreated set must continue from.
	_, err := registerNew(t, f, lim, "c", "broker-old", "10.0.0.1:10911")
	require.NoError(t, err)
	live := newFakeLive().set("c", "broker-old", 1, 0, 0, 0)
	for i := 0; i < 3; i++ {
		require.NoError(t, buildApply(t, f, func(s *state) ([]event, error) {
			_, evs, err := s.ElectMaster(wire.ElectMasterRequest{BrokerName: "broker-old", BrokerID: wire.NoBrokerID}, newFakeLive(), electOptions{})
			if codeOf(err) == codeOf(&domainError{Kind: errMasterNotAvailable}) {
				err = nil
			}
			return evs, err
		}))
		require.NoError(t, buildApply(t, f, func(s *state) ([]event, error) {
			_, evs, err := s.ElectMaster(wire.ElectMasterRequest{ClusterName: "c", BrokerName: "broker-old", BrokerID: 1}, live, electOptions{})
			return evs, err
		}))
	}
	old, ok := f.state().SyncState("broker-old")
	require.True(t, ok)
	require.NoError(t, cleanWhole(t, f, "broker-old"))

	names := floodTombstones(t, f, lim, 2*maxRetiredSets+10)
	var held int64
	f.fsm.read(func(s *state) { held = s.bytes(); require.Empty(t, s.BrokerNames()) })
	t.Logf("%d sets created and cleaned: %d tombstones, %d of %d bytes held, no set stored",
		len(names), len(f.state().retired), held, lim.StateBytes)
	require.LessOrEqual(t, len(f.state().retired), maxRetiredSets+1, "tombstones are bounded")

	// The folded tombstone survives a snapshot (a restarted node, a new
	// leader): the restored state hands out the same next id.
	restored := NewFSM(testLogger(t))
	require.NoError(t, restored.Restore(io.NopCloser(bytes.NewReader(snapshotBytes(t, f.fsm)))))
	var wantNext, gotNext int64
	f.fsm.read(func(s *state) { wantNext = s.firstBrokerID("broker-a") })
	restored.read(func(s *state) { gotNext = s.firstBrokerID("broker-a"); require.Equal(t, f.state().retired, s.retired) })
	require.Equal(t, wantNext, gotNext)

	id, err := registerNew(t, f, lim, "c", "broker-a", "10.0.0.2:10911")
	require.NoError(t, err, "a real broker's new set after the flood")
	requireSizeExact(t, f)
	t.Logf("broker-a registered as id %d; %d bytes held, %d tombstones", id, f.state().bytes(), len(f.state().retired))

	// Fencing kept: the recreated old set continues from its epochs and ids.
	id, err = registerNew(t, f, lim, "c", "broker-old", "10.0.0.1:10911")
	require.NoError(t, err)
	again, ok := f.state().SyncState("broker-old")
	require.True(t, ok)
	require.GreaterOrEqual(t, again.MasterEpoch, old.MasterEpoch)
	require.GreaterOrEqual(t, again.SyncStateSetEpoch, old.SyncStateSetEpoch)
	require.Greater(t, id, int64(1), "the recreated set hands out a new id")
	// And so does any flooded name.
	id, err = registerNew(t, f, lim, "c", names[0], "10.1.1.1:10911")
	require.NoError(t, err)
	require.Greater(t, id, int64(1))
	requireSizeExact(t, f)

	// Every node folds at the same entry: a node replaying the log holds
	// the same state.
	replay := newTestFSM(t)
	for _, entry := range f.log {
		replay.applyRaw(entry)
	}
	require.Equal(t, f.state().retired, replay.state().retired)
	require.Equal(t, f.state().replicas, replay.state().replicas)
	require.Equal(t, f.state().syncStates, replay.state().syncStates)
	requireSizeExact(t, replay)
}

// TestAttackSetsFillThenOperatorRecovers: a stranger fills
// controllerMaxBrokerSets with sets of its own, each with an elected
// master; a real broker's new set is refused (2005 naming the key). The
// operator lists the sets (the names rocketmq_controller_master_epoch
// exposes), cleans the stranger's with isCleanLivingBroker, and the real
// broker registers (passed: no defect; without ACL the stranger can refill
// as fast, which is what ACL is for).
func TestAttackSetsFillThenOperatorRecovers(t *testing.T) {
	f := newTestFSM(t)
	lim := defaultLimits
	lim.BrokerSets = 50
	for i := 0; i < lim.BrokerSets; i++ {
		name := fmt.Sprintf("junk-%03d", i)
		_, err := registerNew(t, f, lim, "c", name, "10.1.1.1:10911")
		require.NoError(t, err)
		require.NoError(t, buildApply(t, f, func(s *state) ([]event, error) {
			_, evs, err := s.ElectMaster(wire.ElectMasterRequest{ClusterName: "c", BrokerName: name, BrokerID: 1}, newFakeLive(), electOptions{})
			return evs, err
		}))
	}
	_, err := registerNew(t, f, lim, "c", "broker-a", "10.0.0.2:10911")
	require.ErrorIs(t, err, errStateBound)
	t.Logf("refused: %v", err)
	for _, name := range f.state().BrokerNames() {
		require.NoError(t, cleanWhole(t, f, name))
	}
	_, err = registerNew(t, f, lim, "c", "broker-a", "10.0.0.2:10911")
	require.NoError(t, err)
	requireSizeExact(t, f)
}

// TestAttackIDSquattingRecoverable: a stranger applies ids MaxInt64 and
// the next id but one to a real set (Java's rules allow any unused id of a
// known set). NextAssignBrokerID counts additions (Java's addBroker), so
// MaxInt64 overflows nothing; the next id a new replica asks for is then
// held by the stranger and its 1013 is 2014 (as in Java) until the
// operator cleans the squatted ids, after which it registers (passed: no
// defect).
func TestAttackIDSquattingRecoverable(t *testing.T) {
	f := newTestFSM(t)
	lim := defaultLimits
	_, err := registerNew(t, f, lim, "c", "broker-a", "10.0.0.1:10911")
	require.NoError(t, err)
	for _, id := range []int64{math.MaxInt64, 3} {
		require.NoError(t, buildApply(t, f, func(s *state) ([]event, error) {
			_, evs, err := s.applyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: "c", BrokerName: "broker-a",
				AppliedBrokerID: id, RegisterCheckCode: "10.6.6.6:1;1"}, lim)
			return evs, err
		}))
	}
	r, _ := f.state().Replicas("broker-a")
	require.Equal(t, int64(4), r.NextAssignBrokerID)
	_, err = registerNew(t, f, lim, "c", "broker-a", "10.0.0.2:10911") // asks 1012: 4, free
	require.NoError(t, err)
	require.NoError(t, buildApply(t, f, func(s *state) ([]event, error) {
		_, evs, err := s.applyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: "c", BrokerName: "broker-a",
			AppliedBrokerID: 6, RegisterCheckCode: "10.6.6.6:1;1"}, lim)
		return evs, err
	}))
	_, err = registerNew(t, f, lim, "c", "broker-a", "10.0.0.3:10911") // 1012: 6, squatted
	require.Equal(t, codeOf(newError(errBrokerIDInvalid, "")), codeOf(err), "%v", err)
	require.NoError(t, buildApply(t, f, func(s *state) ([]event, error) {
		_, evs, err := s.CleanBrokerData(wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "broker-a",
			BrokerControllerIDsToClean: fmt.Sprintf("3;6;%d", int64(math.MaxInt64))}, newFakeLive())
		return evs, err
	}))
	_, err = registerNew(t, f, lim, "c", "broker-a", "10.0.0.3:10911")
	require.NoError(t, err)
	requireSizeExact(t, f)
}
