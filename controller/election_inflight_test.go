//go:build embedded_controller

package controller

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/sched"
	"github.com/rmqgo/nameserver/controller/wire"
)

// TestAttackExpiryMissesMasterElectedInFlight: the expiry worker reads the
// FSM outside the scheduler. An election of broker 2 is built and its entry
// is held at apply; meanwhile broker 2's connection closes. The worker's
// read still shows master 1, so the event did not report the master and no
// election followed: once the entry applied, set b's master was a broker
// that had gone until the next inactive-master scan, an interval away.
// Java asks the event scheduler (getReplicaInfo) before it elects, which
// orders the check after the in-flight entry; ours checks such an event
// again in its set's order.
func TestAttackExpiryMissesMasterElectedInFlight(t *testing.T) {
	ic, gated := gatedControllers(t)
	leader := ic.leader(t)
	for id := int64(1); id <= 3; id++ { // each broker on a connection of its own
		require.NoError(t, leader.hb.OnHeartbeat(wire.BrokerHeartbeatRequest{ClusterName: "c", BrokerName: "b",
			BrokerAddr: addrOf(id), BrokerID: ptr(id), HeartbeatTimeoutMillis: ptr(int64(60_000))}, liveness.ConnID(100+id)))
		mustSchedule(t, leader, func(s *state) (response, []event, error) {
			return s.ApplyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: "c", BrokerName: "b", AppliedBrokerID: id,
				RegisterCheckCode: addrOf(id) + ";1"})
		})
	}
	mustSchedule(t, leader, leader.electionBuilder(brokerElectRequest("c", "b", 1)))
	mustSchedule(t, leader, alterTo(leader.hb, 1, 1, 1, 1, 2, 3))

	g := gated[leader.Node().ID()]
	g.arm()
	defer g.release()
	built := make(chan struct{})
	first := make(chan outcome, 1)
	elect := leader.electionBuilder(adminElectRequest("c", "b", 2))
	go func() {
		first <- leader.scheduleOn(sched.SetKeys("b"), func(s *state) (response, []event, error) {
			defer close(built)
			return elect(s)
		}, 10*time.Second)
	}()
	<-built
	q := leader.inactive.Load()
	passes := q.passes.Load()
	require.Len(t, leader.hb.OnConnClose(liveness.ConnID(102)), 1, "broker 2 goes")
	require.Eventually(t, func() bool { return q.passes.Load() > passes }, 5*time.Second, time.Millisecond)
	g.release()
	out := <-first
	if errors.Is(out.err, errNotLeader) {
		t.Skip("the leader lost its leadership on the way")
	}
	require.NoError(t, out.err)

	deadline := time.Now().Add(10 * time.Second)
	for {
		var ss syncStateInfo
		leader.fsm.read(func(s *state) { ss, _ = s.SyncState("b") })
		if ss.MasterBrokerID != 2 && ss.MasterEpoch > 2 {
			t.Logf("master %d, epoch %d", ss.MasterBrokerID, ss.MasterEpoch)
			return
		}
		if time.Now().After(deadline) {
			elections, _ := ic.obs[leader.Node().ID()].snapshot()
			if !leader.IsReadyLeader() || slices.Contains(elections, "inactive:2007") {
				t.Skipf("the leader lost its leadership on the way (elections %v)", elections)
			}
			require.FailNow(t, "set b kept a master that is gone", "master %d (alive %v), epoch %d, elections %v",
				ss.MasterBrokerID, leader.hb.IsActive("c", "b", ss.MasterBrokerID), ss.MasterEpoch, elections)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// holdingObserver blocks the first inactive election's report until
// released: the election loop has its result but still counts as running.
type holdingObserver struct {
	*recordingObserver
	held    chan struct{} // closed when the report is held
	release chan struct{}
	once    sync.Once
}

func (o *holdingObserver) ElectionFinished(tr ElectTrigger, code int32, d time.Duration) {
	o.recordingObserver.ElectionFinished(tr, code, d)
	if tr == TriggerInactive {
		o.once.Do(func() {
			close(o.held)
			<-o.release
		})
	}
}

// TestAttackInactiveDuringElectionLoopEnd: the master a controller-triggered
// election has just made (its entry applied) loses its connection while the
// loop is still finishing. The expiry worker sees that it is the master,
// but the set's loop still runs; a trigger dropped there would leave the
// set with a master that had gone until the next inactive-master scan. A trigger that
// arrives while the loop runs makes it run once more.
func TestAttackInactiveDuringElectionLoopEnd(t *testing.T) {
	obs := &holdingObserver{recordingObserver: newRecordingObserver(), held: make(chan struct{}), release: make(chan struct{})}
	ic := newCluster(t, 1, withOptions(WithObserver(obs)))
	leader := ic.leader(t)
	defer func() {
		select {
		case <-obs.release:
		default:
			close(obs.release)
		}
	}()
	for id := int64(1); id <= 3; id++ {
		require.NoError(t, leader.hb.OnHeartbeat(wire.BrokerHeartbeatRequest{ClusterName: "c", BrokerName: "b",
			BrokerAddr: addrOf(id), BrokerID: ptr(id), HeartbeatTimeoutMillis: ptr(int64(60_000))}, liveness.ConnID(100+id)))
		mustSchedule(t, leader, func(s *state) (response, []event, error) {
			return s.ApplyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: "c", BrokerName: "b", AppliedBrokerID: id,
				RegisterCheckCode: addrOf(id) + ";1"})
		})
	}
	mustSchedule(t, leader, leader.electionBuilder(brokerElectRequest("c", "b", 1)))
	mustSchedule(t, leader, alterTo(leader.hb, 1, 1, 1, 1, 2, 3))

	require.Len(t, leader.hb.OnConnClose(liveness.ConnID(101)), 1, "master 1 goes")
	select {
	case <-obs.held:
	case <-time.After(10 * time.Second):
		require.FailNow(t, "no election after master 1 went")
	}
	var ss syncStateInfo
	leader.fsm.read(func(s *state) { ss, _ = s.SyncState("b") })
	require.Contains(t, []int64{2, 3}, ss.MasterBrokerID)
	gone := ss.MasterBrokerID
	q := leader.inactive.Load()
	passes := q.passes.Load()
	require.Len(t, leader.hb.OnConnClose(liveness.ConnID(100+gone)), 1, "the new master goes too")
	require.Eventually(t, func() bool { return q.passes.Load() > passes }, 5*time.Second, time.Millisecond)
	close(obs.release)

	deadline := time.Now().Add(10 * time.Second)
	for {
		leader.fsm.read(func(s *state) { ss, _ = s.SyncState("b") })
		if ss.MasterBrokerID != gone && ss.MasterEpoch > 2 {
			t.Logf("master %d, epoch %d", ss.MasterBrokerID, ss.MasterEpoch)
			return
		}
		if time.Now().After(deadline) {
			elections, _ := obs.snapshot()
			require.FailNow(t, "set b kept a master that is gone", "master %d (alive %v), epoch %d, elections %v",
				ss.MasterBrokerID, leader.hb.IsActive("c", "b", ss.MasterBrokerID), ss.MasterEpoch, elections)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestLeadershipLossEndsLoopsAndTasks: the leader runs an election
// loop for a set without candidates (marked to run again) and holds a
// re-check behind a live task of the set when it hands its leadership
// over; afterwards none of its loops, re-checks or tasks is left.
func TestLeadershipLossEndsLoopsAndTasks(t *testing.T) {
	ic := newCluster(t, 3)
	leader := ic.leader(t)
	for id := int64(1); id <= 2; id++ {
		require.NoError(t, leader.hb.OnHeartbeat(wire.BrokerHeartbeatRequest{ClusterName: "c", BrokerName: "b",
			BrokerAddr: addrOf(id), BrokerID: ptr(id), HeartbeatTimeoutMillis: ptr(int64(60_000))}, liveness.ConnID(100+id)))
		mustSchedule(t, leader, func(s *state) (response, []event, error) {
			return s.ApplyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: "c", BrokerName: "b", AppliedBrokerID: id,
				RegisterCheckCode: addrOf(id) + ";1"})
		})
	}
	mustSchedule(t, leader, leader.electionBuilder(brokerElectRequest("c", "b", 1)))
	release := make(chan struct{})
	require.NoError(t, leader.sched.Submit(sched.SetKeys("b"), func() { <-release }))
	leader.hb.OnConnClose(liveness.ConnID(102))
	leader.hb.OnConnClose(liveness.ConnID(101)) // master 1 goes, no candidate left
	require.Eventually(t, func() bool {
		_, pending := leader.rechecking.Load("b")
		return leader.loops.markRunning("b") || pending
	}, 10*time.Second, time.Millisecond)
	require.NoError(t, leader.Node().Raft().LeadershipTransfer().Error())
	close(release)
	require.Eventually(t, func() bool {
		leader.loops.mu.Lock()
		loops := len(leader.loops.again)
		leader.loops.mu.Unlock()
		rechecks := 0
		leader.rechecking.Range(func(any, any) bool { rechecks++; return true })
		return !leader.IsReadyLeader() && loops == 0 && rechecks == 0 && leader.sched.Pending() == 0
	}, 20*time.Second, 5*time.Millisecond, "loops, re-checks or tasks left after the leadership went")
}
