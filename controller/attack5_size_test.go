//go:build embedded_controller

package controller

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// TestAttackSyncStateSetsPastStateBytes: a stranger (ACL off) fills
// controllerMaxStateBytes with sets of registered ids, heartbeats for them,
// elects each set's id 1 and alters its sync-state set to every id. Neither
// ElectMaster nor AlterSyncStateSet checks the bound, and each id of a
// sync-state set is counted: the state must still hold no more than the
// bound (refusing the alter instead would let the stranger block the
// in-sync replicas of every real broker set once the state is full).
func TestAttackSyncStateSetsPastStateBytes(t *testing.T) {
	f := newTestFSM(t)
	lim := defaultLimits
	lim.StateBytes = 64 << 10
	live := newFakeLive()
	var sets []string
	for i := 0; ; i++ {
		name := fmt.Sprintf("s%03d", i/32)
		id, err := registerNew(t, f, lim, "c", name, "a:1")
		if err != nil {
			require.Equal(t, codeOf(stateBoundError("x", "y")), codeOf(err), "filled until the bound: %v", err)
			break
		}
		live.set("c", name, id, 0, 0, 0)
		if id == 1 {
			sets = append(sets, name)
		}
	}
	full := f.state().bytes()
	for _, name := range sets {
		require.NoError(t, buildApply(t, f, func(s *state) ([]event, error) {
			_, evs, err := s.ElectMaster(wire.ElectMasterRequest{ClusterName: "c", BrokerName: name, BrokerID: 1}, live, electOptions{})
			return evs, err
		}))
		require.NoError(t, buildApply(t, f, func(s *state) ([]event, error) {
			r, _ := s.Replicas(name)
			ss, _ := s.SyncState(name)
			_, evs, err := s.AlterSyncStateSet(wire.AlterSyncStateSetRequest{BrokerName: name, MasterBrokerID: 1,
				MasterEpoch: ss.MasterEpoch, SyncStateSet: wire.SyncStateSet{SyncStateSet: r.sortedIDs(),
					SyncStateSetEpoch: ss.SyncStateSetEpoch}}, live)
			return evs, err
		}))
	}
	after := f.state().bytes()
	t.Logf("%d sets filled the bound: %d of %d bytes; after electing and altering every set: %d bytes",
		len(sets), full, lim.StateBytes, after)
	require.LessOrEqual(t, after, lim.StateBytes, "elections and alters grew the state past controllerMaxStateBytes")
	requireSizeExact(t, f)
}
