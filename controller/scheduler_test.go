//go:build embedded_controller

package controller

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/sched"
	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// gatedFSM holds back the application of command entries while a gate is
// armed: Raft keeps committing (and this node keeps leading) but the
// entry's ApplyFuture on this node does not resolve until release.
type gatedFSM struct {
	*FSM
	mu   sync.Mutex
	gate chan struct{}
}

// Apply implements raft.FSM.
func (g *gatedFSM) Apply(l *raft.Log) interface{} {
	g.mu.Lock()
	gate := g.gate
	g.mu.Unlock()
	if gate != nil && l.Type == raft.LogCommand {
		<-gate
	}
	return g.FSM.Apply(l)
}

func (g *gatedFSM) arm() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.gate = make(chan struct{})
}

func (g *gatedFSM) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gate != nil {
		close(g.gate)
		g.gate = nil
	}
}

// gatedControllers starts 3 controllers whose FSMs can be gated, on the
// production Raft timeouts (steadyRaft): their scenarios need one leader
// throughout.
func gatedControllers(t *testing.T) (*inmemControllers, map[string]*gatedFSM) {
	gated := map[string]*gatedFSM{}
	var mu sync.Mutex
	ic := newCluster(t, 3, wrapFSM(func(id string, f *FSM) raft.FSM {
		mu.Lock()
		defer mu.Unlock()
		gated[id] = &gatedFSM{FSM: f}
		return gated[id]
	}), tuneRaft(steadyRaft))
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, g := range gated {
			g.release()
		}
	})
	return ic, gated
}

// mustSchedule runs build on the leader and requires code 0.
func mustSchedule(t *testing.T, c *Controller, build buildFunc) response {
	t.Helper()
	out := c.schedule(build, requestTimeout)
	require.NoError(t, out.err)
	return out.resp
}

// setupSet registers ids 1..3 of set "b" on the leader (alive there), elects
// 1 and widens the sync-state set to {1,2,3} (master epoch 1, ss epoch 2).
func setupSet(t *testing.T, c *Controller) {
	for id := int64(1); id <= 3; id++ {
		require.NoError(t, c.hb.OnHeartbeat(wire.BrokerHeartbeatRequest{ClusterName: "c", BrokerName: "b",
			BrokerAddr: addrOf(id), BrokerID: ptr(id), HeartbeatTimeoutMillis: ptr(int64(60_000))}, 0))
		mustSchedule(t, c, func(s *state) (response, []event, error) {
			return s.ApplyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: "c", BrokerName: "b", AppliedBrokerID: id,
				RegisterCheckCode: addrOf(id) + ";1"})
		})
	}
	mustSchedule(t, c, c.electionBuilder(brokerElectRequest("c", "b", 1)))
	mustSchedule(t, c, alterTo(c.hb, 1, 1, 1, 1, 2, 3))
}

// The reply of a command whose entry Apply rejected is that rejection, not
// the builder's optimistic response (docs/controller.md sections 2.4 and
// 5.2).
func TestReplyComesFromAppliedResult(t *testing.T) {
	ic := newCluster(t, 3)
	leader := ic.leader(t)
	out := leader.schedule(func(*state) (response, []event, error) {
		resp := wire.ElectMasterResponse{MasterBrokerID: ptr(int64(9)), MasterEpoch: ptr(int32(1))}
		return resp, []event{electMasterEvent{NewMasterElected: true, BrokerName: "nope", NewMasterBrokerID: 9}}, nil
	}, requestTimeout)
	require.Equal(t, remoting.ControllerBrokerMetadataNotExist, codeOf(out.err), "reply code: %v", out.err)
	require.Nil(t, out.resp, "no optimistic header or body")
}

// An apply that outlives its request's deadline still holds the scheduler:
// the next command is built only once that entry was applied
// (docs/controller.md section 5.2). The admin election of 2 times out while its
// entry is held back; the old master's alter {1,3} under master epoch 1 must
// then be built on the state with master 2, not on the stale one.
func TestNextCommandWaitsForInFlightApply(t *testing.T) {
	for attempt := 1; !inFlightApplyScenario(t); attempt++ {
		// a loaded machine can cost the leader its lease (250 ms with
		// steadyRaft) before or during the scenario
		require.Less(t, attempt, 5, "the leader kept losing its leadership")
		t.Logf("attempt %d: the leader lost its leadership; again on a new cluster", attempt)
	}
}

// inFlightApplyScenario runs the scenario of
// TestNextCommandWaitsForInFlightApply; false when the leader lost its
// leadership on the way (nothing was checked then).
func inFlightApplyScenario(t *testing.T) bool {
	ic, gated := gatedControllers(t)
	leader := ic.leader(t)
	setupSet(t, leader)
	inv := newInvariantChecker(t)
	leader.fsm.read(inv.observeState)

	g := gated[leader.Node().ID()]
	g.arm()
	defer g.release()
	first := leader.schedule(leader.electionBuilder(adminElectRequest("c", "b", 2)), 2*time.Second) // time to be built and appended on a loaded machine; the gate holds its apply
	if !leader.IsReadyLeader() {
		return false
	}
	require.Equal(t, codeSystemError, codeOf(first.err), "the election's caller times out: %v", first.err)

	var built atomic.Bool
	var sawMaster atomic.Int64
	alter := alterTo(leader.hb, 1, 1, 2, 1, 3)
	done := make(chan outcome, 1)
	go func() {
		done <- leader.schedule(func(s *state) (response, []event, error) {
			ss, _ := s.SyncState("b")
			sawMaster.Store(ss.MasterBrokerID)
			built.Store(true)
			return alter(s)
		}, 10*time.Second)
	}()
	require.Eventually(t, func() bool { return built.Load() || leader.sched.Pending() >= 2 || !leader.IsReadyLeader() },
		5*time.Second, time.Millisecond, "the alter was never submitted")
	if !leader.IsReadyLeader() {
		return false
	}
	var lateBuilt atomic.Bool
	late := leader.schedule(func(*state) (response, []event, error) {
		lateBuilt.Store(true)
		return nil, nil, nil
	}, 100*time.Millisecond)
	require.Equal(t, codeSystemError, codeOf(late.err), "a queued caller gets code 1 at its deadline")
	g.release()
	second := <-done
	if errors.Is(second.err, errNotLeader) {
		return false
	}

	require.Equal(t, int64(2), sawMaster.Load(), "the alter was built before the election was applied")
	require.Equal(t, remoting.ControllerInvalidMaster, codeOf(second.err), "alter reply: %v", second.err)
	leader.fsm.read(inv.observeState)
	var ss syncStateInfo
	leader.fsm.read(func(s *state) { ss, _ = s.SyncState("b") })
	require.Equal(t, int64(2), ss.MasterBrokerID)
	require.Equal(t, []int64{2}, ss.SyncStateSet)
	done2 := make(chan struct{})
	require.NoError(t, leader.sched.Submit(sched.GlobalKeys(), func() { close(done2) }))
	<-done2
	require.False(t, lateBuilt.Load(), "a task past its deadline never runs")
	return true
}

// A broker set's next command is built only once its in-flight entry is
// applied, while a command of another set runs meanwhile
// (docs/controller.md section 5.2). The election of set b is held back at
// apply; the old master's alter of b waits for it and is then refused on
// the state with the new master; a read of set o is answered while b's
// entry is still in flight.
func TestSetWaitsForItsInFlightEntryOthersDoNot(t *testing.T) {
	for attempt := 1; !perSetScenario(t); attempt++ {
		require.Less(t, attempt, 5, "the leader kept losing its leadership")
		t.Logf("attempt %d: the leader lost its leadership; again on a new cluster", attempt)
	}
}

// perSetScenario runs TestSetWaitsForItsInFlightEntryOthersDoNot; false
// when the leader lost its leadership on the way.
func perSetScenario(t *testing.T) bool {
	ic, gated := gatedControllers(t)
	leader := ic.leader(t)
	setupSet(t, leader)
	g := gated[leader.Node().ID()]
	g.arm()
	defer g.release()

	var electBuilt, alterBuilt, readBuilt atomic.Bool
	var sawMaster atomic.Int64
	elect := leader.electionBuilder(adminElectRequest("c", "b", 2))
	first, second := make(chan outcome, 1), make(chan outcome, 1)
	go func() {
		first <- leader.scheduleOn(sched.SetKeys("b"), func(s *state) (response, []event, error) {
			electBuilt.Store(true)
			return elect(s)
		}, 10*time.Second)
	}()
	require.Eventually(t, electBuilt.Load, 5*time.Second, time.Millisecond, "the election was never built")
	alter := alterTo(leader.hb, 1, 1, 2, 1, 3)
	go func() {
		second <- leader.scheduleOn(sched.SetKeys("b"), func(s *state) (response, []event, error) {
			ss, _ := s.SyncState("b")
			sawMaster.Store(ss.MasterBrokerID)
			alterBuilt.Store(true)
			return alter(s)
		}, 10*time.Second)
	}()
	require.Eventually(t, func() bool { return leader.sched.Pending() >= 2 }, 5*time.Second, time.Millisecond)
	read := leader.scheduleOn(sched.SetKeys("o"), func(s *state) (response, []event, error) {
		readBuilt.Store(true)
		resp, err := s.GetReplicaInfo(wire.GetReplicaInfoRequest{BrokerName: "o"})
		return resp, nil, err
	}, 5*time.Second)
	if errors.Is(read.err, errNotLeader) {
		return false
	}
	require.True(t, readBuilt.Load(), "set o waited for set b: %v", read.err)
	require.Equal(t, remoting.ControllerBrokerMetadataNotExist, codeOf(read.err))
	require.False(t, alterBuilt.Load(), "b's alter was built while b's election was in flight")

	g.release()
	out1, out2 := <-first, <-second
	if errors.Is(out1.err, errNotLeader) || errors.Is(out2.err, errNotLeader) || !alterBuilt.Load() {
		return false
	}
	require.NoError(t, out1.err)
	require.Equal(t, int64(2), sawMaster.Load(), "the alter was built before the election was applied")
	require.Equal(t, remoting.ControllerInvalidMaster, codeOf(out2.err), "alter reply: %v", out2.err)
	return true
}

// A keyed task whose deadline passed while its set was held is answered
// code 1 without running; a panicking task of another set is answered
// code 1 and frees its set; the held set serves again once released.
func TestKeyedTaskDeadlineAndPanic(t *testing.T) {
	ic := newCluster(t, 1)
	leader := ic.leader(t)
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock) // a failed check must not leave the task running at shutdown
	require.NoError(t, leader.sched.Submit(sched.SetKeys("b"), func() { <-release }))
	var lateBuilt atomic.Bool
	late := leader.scheduleOn(sched.SetKeys("b"), func(*state) (response, []event, error) {
		lateBuilt.Store(true)
		return nil, nil, nil
	}, 50*time.Millisecond)
	require.Equal(t, codeSystemError, codeOf(late.err), "a held set's caller gets code 1 at its deadline")

	boom := leader.scheduleOn(sched.SetKeys("o"), func(*state) (response, []event, error) { panic("boom") }, requestTimeout)
	require.Equal(t, codeSystemError, codeOf(boom.err))
	require.Contains(t, boom.err.Error(), "boom")
	require.NoError(t, leader.scheduleOn(sched.SetKeys("o"), func(*state) (response, []event, error) { return nil, nil, nil },
		requestTimeout).err, "set o is free after the panic")

	unblock()
	require.NoError(t, leader.scheduleOn(sched.SetKeys("b"), func(*state) (response, []event, error) { return nil, nil, nil },
		requestTimeout).err)
	require.False(t, lateBuilt.Load(), "a task past its deadline never runs")
}
