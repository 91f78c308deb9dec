//go:build embedded_controller

package controller

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/remoting"
)

// applyNewSet builds a 1013 creating set name (id 1) under lim.
func applyNewSet(name string, lim stateLimits) buildFunc {
	return func(s *state) (response, []event, error) {
		return s.applyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: "c", BrokerName: name, AppliedBrokerID: 1,
			RegisterCheckCode: "10.0.0.1:10911;1"}, lim)
	}
}

// Two sets' growing entries in flight together: the second check counts
// the first one's reservation (room for one set is not given twice); the
// applied entry releases it, so the state's own count takes over without
// a moment where the growth counts twice or not at all.
func TestReservationsCountOtherSetsInFlight(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "old", 1)
	lim := defaultLimits
	lim.BrokerSets, lim.held, lim.term = 2, f.fsm.held, 1

	a := buildOn(f, applyNewSet("a", lim))
	require.NoError(t, a.err)
	b := buildOn(f, applyNewSet("b", lim))
	require.Equal(t, remoting.ControllerInvalidRequest, codeOf(b.err), "set a's entry in flight holds the last set: %v", b.err)
	require.Contains(t, b.err.Error(), "controllerMaxBrokerSets")
	_, held, n := f.fsm.held.reserved()
	require.Equal(t, 1, n)
	require.Equal(t, 1, held.sets)
	require.Positive(t, held.bytes)

	require.NoError(t, applyBuilt(t, f, a))
	_, held, n = f.fsm.held.reserved()
	require.Zero(t, n, "applied: released")
	require.Equal(t, growth{}, held)
	again := buildOn(f, applyNewSet("b", lim))
	require.Contains(t, again.err.Error(), "controllerMaxBrokerSets", "the applied set counts in the state now")

	retry := buildOn(f, applyNewSet("a", lim))
	require.NoError(t, retry.err, "an idempotent retry grows nothing")
	_, _, n = f.fsm.held.reserved()
	require.Zero(t, n, "and reserves nothing")
}

// The bytes bound counts the reserved bytes of other sets' entries; an
// address change that shrinks reserves nothing.
func TestReservationsCountBytesInFlight(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "old", 1)
	var base int64
	f.fsm.read(func(s *state) { base = s.bytes() })
	cost := newSetCost("c", "a", "10.0.0.1:10911", "10.0.0.1:10911;1")
	lim := defaultLimits
	lim.StateBytes, lim.held, lim.term = base+cost+cost/2, f.fsm.held, 1
	require.NoError(t, buildOn(f, applyNewSet("a", lim)).err)
	err := buildOn(f, applyNewSet("b", lim)).err
	require.Contains(t, err.Error(), "controllerMaxStateBytes")
	require.Contains(t, err.Error(), fmt.Sprintf("(%d held, %d more asked)", base+cost, cost), "the reserved bytes count as held")

	shorter := buildOn(f, func(s *state) (response, []event, error) {
		return s.registerBroker(wire.RegisterBrokerRequest{ClusterName: "c", BrokerName: "old", BrokerID: 1,
			BrokerAddress: "1.2.3.4:1"}, newFakeLive(), lim)
	})
	require.NoError(t, shorter.err)
	require.Len(t, shorter.events, 1)
	_, _, n := f.fsm.held.reserved()
	require.Equal(t, 1, n, "a shrinking address reserves nothing")
}

// An entry lost with the leadership keeps its reservation until a check
// of a later term runs: that term's Barrier applied every committed
// entry, so the reservation is obsolete and dropped. A check made after
// the gate closed (term 0) is answered 2007. An entry that never reached
// the log releases its reservation at once.
func TestReservationsOfALostTermAreDropped(t *testing.T) {
	f := newTestFSM(t)
	lim := defaultLimits
	lim.BrokerSets, lim.held, lim.term = 1, f.fsm.held, 7
	require.NoError(t, buildOn(f, applyNewSet("a", lim)).err, "in flight, then lost with term 7")
	require.Contains(t, buildOn(f, applyNewSet("b", lim)).err.Error(), "controllerMaxBrokerSets")

	closed := lim
	closed.term = 0
	require.Equal(t, remoting.ControllerNotLeader, codeOf(buildOn(f, applyNewSet("b", closed)).err))

	lim.term = 8
	b := buildOn(f, applyNewSet("b", lim))
	require.NoError(t, b.err, "the reservation of term 7 is obsolete in term 8")
	term, held, n := f.fsm.held.reserved()
	require.Equal(t, uint64(8), term)
	require.Equal(t, 1, n)
	require.Equal(t, 1, held.sets)

	f.fsm.held.release(b.events) // never appended
	_, _, n = f.fsm.held.reserved()
	require.Zero(t, n)
}

// Which append errors mean the entry never reached the log.
func TestNeverAppendedErrors(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("%w: %w", raftstore.ErrTimeout, err) }
	require.True(t, neverAppended(wrap(raft.ErrEnqueueTimeout)))
	require.True(t, neverAppended(fmt.Errorf("%w: %w", raftstore.ErrNotLeader, raft.ErrNotLeader)))
	require.False(t, neverAppended(fmt.Errorf("%w: %w", raftstore.ErrNotLeader, raft.ErrLeadershipLost)),
		"a lost leadership may still commit the entry")
	require.False(t, neverAppended(fmt.Errorf("%w: %w", raftstore.ErrClosed, raft.ErrRaftShutdown)))
}

// TestConcurrentGrowthKeepsBoundsExact: a hundred 1013s creating new sets
// arrive together on a leader with a slow disk, so that their entries are
// in flight together (no key orders them). The sets accepted are exactly
// as many as the bounds hold: for controllerMaxBrokerSets, and for
// controllerMaxStateBytes with sets of equal cost, neither one more (an
// overshoot) nor one fewer (a growth counted twice); nothing stays
// reserved afterwards.
func TestConcurrentGrowthKeepsBoundsExact(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props []string
		want  func(cost int64) int
	}{
		{"sets", []string{"controllerMaxBrokerSets=17"}, func(int64) int { return 17 }},
		{"bytes", []string{"controllerMaxStateBytes=65536"}, func(cost int64) int { return int(65536 / cost) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			disk := &raftstore.DiskFaults{}
			ic := newCluster(t, 1, tuneRaft(func(cfg *raftstore.Config) { cfg.DiskFaults = disk }), withProps(tc.props...))
			ctl := ic.leader(t)
			disk.SetDelay(floodWriteDelay)
			name := func(i int) string { return fmt.Sprintf("%s-%04d", strings.Repeat("n", 100), i) }
			const n = 100
			codes := make([]int32, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					codes[i] = invoke(t, ctl.Addr(), remoting.ControllerApplyBrokerID, map[string]string{
						"clusterName": "c", "brokerName": name(i), "appliedBrokerId": "1",
						"registerCheckCode": "10.0.0.1:10911;" + strconv.Itoa(1000+i)}, nil).Code
				}()
			}
			wg.Wait()
			cost := newSetCost("c", brokerName(name(0)), "10.0.0.1:10911", "10.0.0.1:10911;1000")
			accepted := 0
			for _, c := range codes {
				if c == codeSuccess {
					accepted++
				} else {
					require.Equal(t, remoting.ControllerInvalidRequest, c)
				}
			}
			var sets int
			var bytes int64
			ctl.fsm.read(func(s *state) { sets, bytes = len(s.BrokerNames()), s.bytes() })
			t.Logf("%d of %d accepted, %d sets stored, %d bytes (one set %d)", accepted, n, sets, bytes, cost)
			require.Equal(t, tc.want(cost), accepted)
			require.Equal(t, accepted, sets)
			_, held, left := ctl.fsm.held.reserved()
			require.Zero(t, left, "every reservation was released")
			require.Equal(t, growth{}, held)
		})
	}
}

// TestReservationOfAnEntryLostWithTheLeadership: on a leader whose disk
// stalls, a 1013 creating set a is in flight and holds the last set of
// the bound, so a 1013 for set b is refused. The write then fails: the
// leader steps down and a's entry is lost. When the node leads again (a
// later term), a's reservation no longer counts: b is accepted, a is not
// stored.
func TestReservationOfAnEntryLostWithTheLeadership(t *testing.T) {
	var mu sync.Mutex
	disks := map[string]*raftstore.DiskFaults{}
	ic := newCluster(t, 3, tuneRaft(func(cfg *raftstore.Config) {
		mu.Lock()
		defer mu.Unlock()
		if disks[cfg.SelfID] == nil {
			disks[cfg.SelfID] = &raftstore.DiskFaults{}
		}
		cfg.DiskFaults = disks[cfg.SelfID]
	}), withProps("controllerMaxBrokerSets=1"))
	ctl := ic.leader(t)
	id := ctl.Node().ID()
	mu.Lock()
	disk := disks[id]
	mu.Unlock()
	apply := func(name string) *remoting.Command {
		return invoke(t, ctl.Addr(), remoting.ControllerApplyBrokerID, map[string]string{"clusterName": "c",
			"brokerName": name, "appliedBrokerId": "1", "registerCheckCode": "10.0.0.1:10911;1"}, nil)
	}

	disk.Pause()
	lost := make(chan *remoting.Command, 1)
	go func() { lost <- apply("a") }()
	require.Eventually(t, func() bool { _, _, n := ctl.fsm.held.reserved(); return n == 1 }, 10*time.Second, time.Millisecond)
	resp := apply("b")
	require.Equal(t, remoting.ControllerInvalidRequest, resp.Code, "a's entry in flight holds the last set: %s", resp.Remark)
	require.Contains(t, resp.Remark, "controllerMaxBrokerSets")

	disk.Fail()
	require.Eventually(t, func() bool { return !ctl.IsReadyLeader() }, 10*time.Second, time.Millisecond)
	disk.Heal()
	a := <-lost
	t.Logf("a's request: %d %s", a.Code, a.Remark)
	oldTerm, _, _ := ctl.fsm.held.reserved()
	leadAgain(t, ic, id)

	resp = apply("b")
	require.Equal(t, codeSuccess, resp.Code, "the reservation of the lost entry still counted: %s", resp.Remark)
	term, held, n := ctl.fsm.held.reserved()
	t.Logf("reservations: term %d → %d, %d held (%+v)", oldTerm, term, n, held)
	require.Greater(t, term, oldTerm)
	require.Zero(t, n)
	require.Equal(t, []string{"b"}, ic.storedNames()[id])
}

// leadAgain makes node id the ready leader again, transferring the
// leadership to it if another node took it.
func leadAgain(t *testing.T, ic *inmemControllers, id string) {
	t.Helper()
	require.Eventually(t, func() bool {
		leader := ic.leader(t)
		if leader.Node().ID() == id {
			return true
		}
		cfg := leader.Node().Raft().GetConfiguration()
		if cfg.Error() != nil {
			return false
		}
		for _, srv := range cfg.Configuration().Servers {
			if string(srv.ID) == id {
				_ = leader.Node().Raft().LeadershipTransferToServer(srv.ID, srv.Address).Error()
			}
		}
		return false
	}, 30*time.Second, 10*time.Millisecond)
	require.Eventually(t, ic.ctls[id].IsReadyLeader, 10*time.Second, time.Millisecond)
}
