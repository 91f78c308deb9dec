//go:build embedded_controller

package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/wire"
)

// The scenario of these tests: the Raft leader dies together with the
// master of set b (they shared a host), so the old leader can neither
// elect nor notify. Brokers beat to every node, so the survivors have been
// hearing broker 1 (the master) and broker 2 (the slave, in the sync-state
// set) all along, and they saw broker 1's connection close. The heartbeat
// tables run on one fake clock: real time passing changes no liveness, so
// a node only counts as having been up for a heartbeat timeout when the
// test advances the clock.

// viewProps keep the periodic inactive-master scan out of the test's time:
// a failover within it comes from what the new leader knows at once.
var viewProps = []string{"scanInactiveMasterInterval=600000"}

// oneTimeout is one default heartbeat timeout (Java brokers announce it).
const oneTimeout = time.Duration(liveness.DefaultTimeoutMillis) * time.Millisecond

// viewConn is the connection broker id beats on, to every node.
func viewConn(id int64) liveness.ConnID { return liveness.ConnID(100 + id) }

// beatTo records one heartbeat of broker id of set b on ctls, announcing
// timeout ms.
func beatTo(t *testing.T, id, timeout int64, ctls ...*Controller) {
	t.Helper()
	for _, c := range ctls {
		require.NoError(t, c.hb.OnHeartbeat(wire.BrokerHeartbeatRequest{ClusterName: "c", BrokerName: "b",
			BrokerAddr: addrOf(id), BrokerID: ptr(id), HeartbeatTimeoutMillis: ptr(timeout)}, viewConn(id)))
	}
}

// strangerBeats records a stranger's heartbeat for a set of its own,
// announcing the longest timeout accepted (60 s), on every node.
func strangerBeats(t *testing.T, ctls ...*Controller) {
	t.Helper()
	for _, c := range ctls {
		require.NoError(t, c.hb.OnHeartbeat(wire.BrokerHeartbeatRequest{ClusterName: "c", BrokerName: "stranger",
			BrokerAddr: "10.9.9.9:1", BrokerID: ptr(int64(1)), HeartbeatTimeoutMillis: ptr(int64(1 << 40))}, 999))
	}
}

// viewCluster starts three controllers on one fake heartbeat clock and
// returns them with the clock and every controller as a slice.
func viewCluster(t *testing.T) (*inmemControllers, *fakeClock, []*Controller) {
	clock := newFakeClock()
	ic := newCluster(t, 3, withOptions(WithClock(clock)), tuneRaft(steadyRaft), withProps(viewProps...))
	var all []*Controller
	for _, c := range ic.ctls {
		all = append(all, c)
	}
	return ic, clock, all
}

// electOneWithTwo registers brokers 1 and 2 of set b on the leader, elects
// 1 and grows the sync-state set to {1,2}; it waits until every node
// applied it.
func electOneWithTwo(t *testing.T, leader *Controller, all []*Controller) {
	t.Helper()
	for id := int64(1); id <= 2; id++ {
		mustSchedule(t, leader, func(s *state) (response, []event, error) {
			return s.ApplyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: "c", BrokerName: "b", AppliedBrokerID: id,
				RegisterCheckCode: addrOf(id) + ";1"})
		})
	}
	mustSchedule(t, leader, leader.electionBuilder(brokerElectRequest("c", "b", 1)))
	mustSchedule(t, leader, alterTo(leader.hb, 1, 1, 1, 1, 2))
	require.Eventually(t, func() bool {
		for _, c := range all {
			if ss, ok := syncStateOn(c); !ok || ss.MasterBrokerID != 1 || len(ss.SyncStateSet) != 2 {
				return false
			}
		}
		return true
	}, 10*time.Second, 5*time.Millisecond, "every node holds master 1 with {1,2}")
}

func syncStateOn(c *Controller) (ss syncStateInfo, ok bool) {
	c.fsm.read(func(s *state) { ss, ok = s.SyncState("b") })
	return ss, ok
}

// killLeaderWithMaster closes broker 1's connection on every follower and
// kills the leader's Raft node (the leader's host died with the master).
func killLeaderWithMaster(t *testing.T, ic *inmemControllers, leader *Controller) []*Controller {
	t.Helper()
	var survivors []*Controller
	for _, c := range ic.ctls {
		if c != leader {
			survivors = append(survivors, c)
			require.Len(t, c.hb.OnConnClose(viewConn(1)), 1, "broker 1 goes on %s", c.Node().ID())
		}
	}
	ic.cluster.Kill(t, leader.Node().ID())
	return survivors
}

// requireNewMaster polls until a survivor is the ready leader and its
// state names broker 2 master of b (at most wait).
func requireNewMaster(t *testing.T, ic *inmemControllers, survivors []*Controller, wait time.Duration) *Controller {
	t.Helper()
	var got *Controller
	ok := pollFor(wait, func() bool {
		for _, c := range survivors {
			if ss, _ := syncStateOn(c); c.IsReadyLeader() && ss.MasterBrokerID == 2 {
				got = c
				return true
			}
		}
		return false
	})
	if !ok {
		for _, c := range survivors {
			ss, _ := syncStateOn(c)
			elections, _ := ic.obs[c.Node().ID()].snapshot()
			t.Logf("%s: ready leader %v, master %d epoch %d, elections %v", c.Node().ID(), c.IsReadyLeader(),
				ss.MasterBrokerID, ss.MasterEpoch, elections)
		}
		require.FailNow(t, "no survivor failed set b over to broker 2", "within %v", wait)
	}
	return got
}

// pollFor calls fn every 5 ms until it reports true or wait passed.
func pollFor(wait time.Duration, fn func() bool) bool {
	for deadline := time.Now().Add(wait); ; time.Sleep(5 * time.Millisecond) {
		if fn() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// TestNewLeaderFailsOverAtOnceFromItsOwnView: the survivors have been up
// for a heartbeat timeout, so each one's table is a complete view of
// liveness: the new leader fails b over to broker 2 as soon as it is
// ready, without waiting for a scan interval or a window, and a stranger
// announcing 60 s changes nothing.
func TestNewLeaderFailsOverAtOnceFromItsOwnView(t *testing.T) {
	ic, clock, all := viewCluster(t)
	leader := ic.leader(t)
	clock.Advance(oneTimeout) // every node has been up for one heartbeat timeout
	beatTo(t, 1, 10_000, all...)
	beatTo(t, 2, 10_000, all...)
	strangerBeats(t, all...)
	electOneWithTwo(t, leader, all)

	survivors := killLeaderWithMaster(t, ic, leader)
	next := requireNewMaster(t, ic, survivors, 10*time.Second)
	elections, _ := ic.obs[next.Node().ID()].snapshot()
	t.Logf("new leader %s elected broker 2 (elections %v)", next.Node().ID(), elections)
}

// TestJustStartedLeaderActsOnLossesItSaw: the survivors have been up for
// less than a heartbeat timeout, so an absent broker proves nothing; but
// they heard broker 1 and saw its connection close. That loss, seen while
// a follower, is acted on as soon as the node is the ready leader.
func TestJustStartedLeaderActsOnLossesItSaw(t *testing.T) {
	ic, _, all := viewCluster(t)
	leader := ic.leader(t)
	beatTo(t, 1, 10_000, all...)
	beatTo(t, 2, 10_000, all...)
	strangerBeats(t, all...)
	electOneWithTwo(t, leader, all)

	survivors := killLeaderWithMaster(t, ic, leader)
	requireNewMaster(t, ic, survivors, 10*time.Second)
}

// TestJustStartedLeaderKeepsMasterItNeverHeard: broker 1 beat only to the
// old leader, so the survivors, up for less than a heartbeat timeout,
// never heard it. The new leader must not fail it over (its beat may be
// on its way) until it has been up for one heartbeat timeout, and then
// does: no beat came in all that time.
func TestJustStartedLeaderKeepsMasterItNeverHeard(t *testing.T) {
	ic, clock, all := viewCluster(t)
	leader := ic.leader(t)
	beatTo(t, 1, 10_000, leader)
	beatTo(t, 2, 10_000, all...)
	electOneWithTwo(t, leader, all)
	var survivors []*Controller
	for _, c := range all {
		if c != leader {
			survivors = append(survivors, c)
		}
	}
	ic.cluster.Kill(t, leader.Node().ID())

	ready := pollFor(10*time.Second, func() bool {
		return survivors[0].IsReadyLeader() || survivors[1].IsReadyLeader()
	})
	require.True(t, ready, "a survivor leads")
	settled := pollFor(time.Second, func() bool { // a failover would come at once: a second is ample
		ss, _ := syncStateOn(survivors[0])
		ss2, _ := syncStateOn(survivors[1])
		return ss.MasterBrokerID != 1 || ss2.MasterBrokerID != 1
	})
	require.False(t, settled, "a just-started leader failed over a master it had never heard")

	clock.Advance(oneTimeout)
	beatTo(t, 2, 10_000, survivors...)
	requireNewMaster(t, ic, survivors, 10*time.Second)
}

// TestFollowerForgetsLossesAfterWarmup: a follower keeps the losses it
// sees during its warm-up (within the expiry queue's bound) and forgets
// them once the warm-up has passed, without another loss to prompt it; it
// keeps none after.
func TestFollowerForgetsLossesAfterWarmup(t *testing.T) {
	ic, clock, all := viewCluster(t)
	ic.leader(t)
	f := ic.follower(t)
	beatTo(t, 1, 10_000, all...)
	require.Len(t, f.hb.OnConnClose(viewConn(1)), 1)
	require.Equal(t, 1, f.held.size(), "kept during the warm-up")

	clock.Advance(oneTimeout)
	require.Eventually(t, func() bool { return f.held.size() == 0 }, 5*time.Second, 5*time.Millisecond,
		"forgotten once the warm-up has passed")
	beatTo(t, 2, 10_000, f)
	require.Len(t, f.hb.OnConnClose(viewConn(2)), 1)
	require.Zero(t, f.held.size(), "none kept after the warm-up")
}
