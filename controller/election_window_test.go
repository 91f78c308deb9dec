//go:build embedded_controller

package controller

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

func TestElectionWindowGathersOneBurst(t *testing.T) {
	e := &electionWindow{w: time.Hour} // released by hand below
	first, second := e.join(), e.join()
	require.Equal(t, first, second, "elections within the window share it")
	e.release(e.open)
	<-second
	next := e.join()
	require.NotEqual(t, first, next, "an election after the release opens a new window")
	done := make(chan struct{})
	close(done)
	e.wait(done) // returns when the controller stops, whatever the window
	(&electionWindow{}).wait(nil)
	require.Equal(t, maxElectionWindow, buildOptions([]Option{WithElectionWindow(time.Minute)}).electionWindow)
	require.Zero(t, buildOptions([]Option{WithElectionWindow(-time.Second)}).electionWindow)
	require.Equal(t, defaultElectionWindow, buildOptions(nil).electionWindow)
}

// TestStormWindowElectsEachSetAlone: the masters of three sets lose their
// connections within one (long) window; one of the three has no live
// candidate left. Its elections fail alone: the other two get broker 2 as
// master at epoch 2, each from an entry of its own, and the live sets keep
// theirs.
func TestStormWindowElectsEachSetAlone(t *testing.T) {
	const sets = 5
	ic := newCluster(t, 1, withOptions(WithElectionWindow(maxElectionWindow)))
	ctl := ic.leader(t)
	fleet := newStormFleet(t, ctl, sets)
	require.NoError(t, fleet.conns["set-002"][1].Close()) // set-002 keeps no candidate
	require.Eventually(t, func() bool { return !ctl.hb.IsActive("c", "set-002", 2) }, 10*time.Second, time.Millisecond)
	for i := range 3 {
		require.NoError(t, fleet.conns[fmt.Sprintf("set-%03d", i)][0].Close())
	}
	master := func(name string) (int64, int32) {
		var id int64
		var epoch int32
		ctl.fsm.read(func(s *state) {
			if _, ss, ok := s.get(name); ok {
				id, epoch = ss.MasterBrokerID, ss.MasterEpoch
			}
		})
		return id, epoch
	}
	require.Eventually(t, func() bool {
		a, _ := master("set-000")
		b, _ := master("set-001")
		return a == 2 && b == 2
	}, 20*time.Second, 5*time.Millisecond)
	for _, name := range []string{"set-000", "set-001"} {
		id, epoch := master(name)
		require.Equal(t, int64(2), id, name)
		require.Equal(t, int32(2), epoch, "%s: one election", name)
	}
	require.Eventually(t, func() bool { id, _ := master("set-002"); return id == wire.NoBrokerID }, 20*time.Second, 5*time.Millisecond)
	for i := 3; i < sets; i++ {
		id, epoch := master(fmt.Sprintf("set-%03d", i))
		require.Equal(t, int64(1), id, "live set %d", i)
		require.Equal(t, int32(1), epoch, "live set %d", i)
	}
}
