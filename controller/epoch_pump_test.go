//go:build embedded_controller

package controller

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// TestAttackAnonymousNoMasterElectionsDoNotPumpTheEpoch: a 1002 with
// brokerId=-1 is a controller trigger, which anyone may send (ACL off).
// Were each one on a set without a live candidate to append a "no
// master" entry bumping the master epoch, whether or not the set still
// had a master, a stranger could drive an idle set's epoch to MaxInt32
// (one fsync'd entry a step), after which no election of it is ever
// accepted again, tombstone included. Only the entry that clears a master
// is written; the epoch moves again only with a change of master.
func TestAttackAnonymousNoMasterElectionsDoNotPumpTheEpoch(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 2)
	live := newFakeLive().set("c", "b", 1, 0, 0, 0)
	elect := func(req wire.ElectMasterRequest) error {
		b := buildOn(f, func(s *state) (response, []event, error) { return s.ElectMaster(req, live, electOptions{}) })
		if len(b.events) > 0 {
			return applyBuilt(t, f, b)
		}
		return b.err
	}
	require.NoError(t, elect(brokerElectRequest("c", "b", 1)))
	live.kill("c", "b", 1)

	anonymous := wire.ElectMasterRequest{BrokerName: "b", BrokerID: wire.NoBrokerID}
	require.Equal(t, remoting.ControllerMasterNotAvailable, codeOf(elect(anonymous)), "the lost master is cleared")
	ss, _ := f.state().SyncState("b")
	require.Equal(t, int32(2), ss.MasterEpoch)
	require.Equal(t, wire.NoBrokerID, ss.MasterBrokerID)

	for range 1000 {
		b := buildOn(f, func(s *state) (response, []event, error) { return s.ElectMaster(anonymous, live, electOptions{}) })
		require.Equal(t, remoting.ControllerMasterNotAvailable, codeOf(b.err))
		require.Empty(t, b.events, "a set without a master: nothing to record")
	}
	ss, _ = f.state().SyncState("b")
	require.Equal(t, int32(2), ss.MasterEpoch, "1000 anonymous elections moved the epoch")

	live.set("c", "b", 1, 0, 0, 0)
	require.NoError(t, elect(anonymous), "a candidate is back: elected")
	ss, _ = f.state().SyncState("b")
	require.Equal(t, int32(3), ss.MasterEpoch)
	require.Equal(t, int64(1), ss.MasterBrokerID)
	require.Less(t, ss.MasterEpoch, int32(math.MaxInt32))
}
