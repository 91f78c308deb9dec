//go:build embedded_controller

package controller

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// TestTombstoneFoldCouplesBrokerSets shows the one place where an entry of
// one broker set changes what another set's entry was built on (per-set
// ordering): a clean that leaves more than maxRetiredSets
// tombstones folds them into the floor (tombstone.go), which raises the first
// id of every set without a replica half. An APPLY_BROKER_ID that creates
// set A, built while set B's folding clean is in flight (per-set order
// lets them run together unless both hold a common key), is then rejected
// by Apply's membership check (2014): safe (it changes nothing, the broker
// asks 1012 again) but a cross-set rejection. Built after the clean, as
// the serial scheduler (or a per-set scheduler where CLEAN_BROKER_DATA
// holds the growth key too) builds it, the first id it asks for is the
// floor's and it applies.
func TestTombstoneFoldCouplesBrokerSets(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "B", 2)
	f.fsm.mu.Lock()
	for i := range maxRetiredSets {
		f.fsm.state.retired[fmt.Sprintf("gone-%04d", i)] = retiredSet{MasterEpoch: 1, NextBrokerID: 2}
	}
	f.fsm.state.retired["gone-high"] = retiredSet{MasterEpoch: 7, NextBrokerID: 50}
	delete(f.fsm.state.retired, "gone-0000") // exactly maxRetiredSets: B's clean makes one more
	f.fsm.mu.Unlock()

	applyA := func(s *state) buildFunc {
		next := s.GetNextBrokerID(wire.GetNextBrokerIDRequest{ClusterName: "c", BrokerName: "A"}).NextBrokerID
		return func(s *state) (response, []event, error) {
			return s.ApplyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: "c", BrokerName: "A", AppliedBrokerID: next,
				RegisterCheckCode: addrOf(1) + ";1"})
		}
	}
	concurrent := buildOn(f, applyA(f.state()))
	require.NoError(t, concurrent.err)
	cleanB := buildOn(f, func(s *state) (response, []event, error) {
		return s.CleanBrokerData(wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "B",
			BrokerControllerIDsToClean: "1;2"}, newFakeLive())
	})
	require.NoError(t, cleanB.err)

	require.NoError(t, applyBuilt(t, f, cleanB), "B's clean applies and folds the tombstones")
	require.Len(t, f.state().retired, 1, "folded into the floor")
	before := f.state()
	err := applyBuilt(t, f, concurrent)
	require.Equal(t, remoting.ControllerBrokerIDInvalid, codeOf(err), "A's first id, built before the fold, is stale: %v", err)
	require.Equal(t, before, f.state(), "the rejected entry changed nothing")

	after := buildOn(f, applyA(f.state()))
	require.NoError(t, after.err)
	require.NoError(t, applyBuilt(t, f, after), "built after the fold, A's first id is the floor's")
	r, _ := f.state().Replicas("A")
	require.Contains(t, r.Brokers, int64(50))
}
