package route

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

func TestUnregisterRemovesGroup(t *testing.T) {
	h := newHarness(t, true)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	require.True(t, h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: "a1", BrokerName: "b1"}))
	h.WaitIdle()
	require.Nil(t, h.Lookup("t1"))
	require.Empty(t, h.AllTopics().TopicList)
	ci := h.ClusterInfo()
	require.Empty(t, ci.BrokerAddrTable)
	require.Empty(t, ci.ClusterAddrTable)
	st := h.Stats()
	require.Equal(t, 0, st.LiveBrokers)
	require.Equal(t, uint64(1), st.Unregistrations)
}

func TestUnregisterSlaveReducesGroup(t *testing.T) {
	h := newHarness(t, true)
	mustRegister(t, h, reg("c1", "b1", "m0", 0, body(1, "t1", "t2")))
	mustRegister(t, h, reg("c1", "b1", "s1", 1, body(1, "t1", "t2")))
	// The request's id is not used for removal: the address is.
	require.True(t, h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: "s1", BrokerName: "b1", BrokerID: 7}))
	h.WaitIdle()
	require.Equal(t, map[int64]string{0: "m0"}, h.Lookup("t1").Route.BrokerDatas[0].BrokerAddrs)
	require.Equal(t, wire.PermRead|wire.PermWrite, queueOf(t, h, "t1", "b1").Perm)
}

func TestUnregisterMasterOfActingMasterGroup(t *testing.T) {
	for _, eam := range []bool{true, false} {
		h := newHarness(t, true)
		m := reg("c1", "b1", "m0", 0, body(1, "t1", "rmq_sys_SYNC_BROKER_MEMBER_b1"))
		s := reg("c1", "b1", "s1", 1, body(1, "t1", "rmq_sys_SYNC_BROKER_MEMBER_b1"))
		m.EnableActingMaster, s.EnableActingMaster = boolp(eam), boolp(eam)
		mustRegister(t, h, m)
		mustRegister(t, h, s)
		require.Nil(t, h.Lookup("t1").ActingMaster)

		require.True(t, h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: "m0", BrokerName: "b1"}))
		h.WaitIdle()
		snap := h.Lookup("t1")
		require.Equal(t, map[int64]string{1: "s1"}, snap.Route.BrokerDatas[0].BrokerAddrs)
		if !eam {
			require.Equal(t, wire.PermRead|wire.PermWrite, queueOf(t, h, "t1", "b1").Perm)
			require.Nil(t, snap.ActingMaster)
			continue
		}
		require.Equal(t, wire.PermRead, queueOf(t, h, "t1", "b1").Perm, "no master left: WRITE stripped")
		require.Equal(t, map[int64]string{0: "s1"}, snap.ActingMaster.BrokerDatas[0].BrokerAddrs)
		require.Same(t, snap.ActingMaster, snap.RouteFor(true))
		require.Same(t, snap.Route, snap.RouteFor(false))
		require.Nil(t, h.Lookup("rmq_sys_SYNC_BROKER_MEMBER_b1").ActingMaster, "sync topics are not rewritten")
	}
}

func TestUnregisterNotifiesOffline(t *testing.T) {
	h := newHarness(t, true)
	h.set(Settings{NotifyMinBrokerIDChanged: true})
	for _, r := range []wire.RegisterRequest{
		reg("c1", "b1", "m0", 0, body(1, "t1", "t2")),
		reg("c1", "b1", "s1", 1, body(1, "t1", "t2")),
		reg("c1", "b1", "s2", 2, body(1, "t1", "t2")),
	} {
		r.EnableActingMaster = boolp(true)
		mustRegister(t, h, r)
	}
	h.takeNotes()
	require.True(t, h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: "m0", BrokerName: "b1", BrokerID: 0}))
	h.WaitIdle()
	require.Equal(t, []wire.MinBrokerIDChange{{TargetAddrs: []string{"s1", "s2"}, MinBrokerID: 1, MinBrokerAddr: "s1",
		OfflineBrokerAddr: "m0"}}, h.takeNotes())

	require.True(t, h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: "s2", BrokerName: "b1", BrokerID: 2}))
	h.WaitIdle()
	require.Empty(t, h.takeNotes(), "id 2 was not the minimum")
}

func TestUnregisterQueueFull(t *testing.T) {
	h := newHarness(t, false, func(o *Options) { o.UnregisterQueueCap = 2 })
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	req := wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: "a1", BrokerName: "b1"}
	require.True(t, h.Unregister(req))
	require.True(t, h.Unregister(req))
	require.False(t, h.Unregister(req))
	st := h.Stats()
	require.Equal(t, uint64(1), st.UnregisterDrops)
	require.Equal(t, 2, st.UnregisterQueueDepth)
	h.WaitIdle() // no worker: applied on the caller
	require.Nil(t, h.Lookup("t1"))
	require.Equal(t, 0, h.Stats().UnregisterQueueDepth)
}

func TestUnregisterUnknownBrokerIsHarmless(t *testing.T) {
	h := newHarness(t, true)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	require.True(t, h.Unregister(wire.UnregisterRequest{ClusterName: "c9", BrokerAddr: "zz", BrokerName: "nobody", BrokerID: 3}))
	h.WaitIdle()
	require.NotNil(t, h.Lookup("t1"))
}

// The old connection's cleanup is still queued when the broker re-registers
// on a new connection: it must not remove the new registration.
func TestStaleChannelCleanupSkipsNewSession(t *testing.T) {
	h := newHarness(t, false)
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	h.unreg.beforeApply = func() {
		once.Do(func() {
			reached <- struct{}{}
			<-release
		})
	}
	h.Start()
	oldCh, newCh := newChan("old"), newChan("new")
	r := reg("c1", "b1", "a1", 0, body(1, "t1", "t2"))
	r.Channel = oldCh
	mustRegister(t, h, r)

	h.OnChannelClose(oldCh)
	<-reached // the worker holds the old connection's request
	r.Channel = newCh
	mustRegister(t, h, r)
	close(release)
	h.WaitIdle()

	require.NotNil(t, h.Lookup("t1"), "still registered")
	require.Equal(t, 1, h.Stats().LiveBrokers)
	require.Equal(t, uint64(1), h.Stats().StaleUnregistrations)
	h.OnChannelClose(oldCh) // no live entry references it any more
	require.Equal(t, 0, h.Stats().UnregisterQueueDepth)

	h.OnChannelClose(newCh)
	h.WaitIdle()
	require.Nil(t, h.Lookup("t1"))
}

func TestExplicitUnregisterFencedByGeneration(t *testing.T) {
	h := newHarness(t, false) // worker not started: requests wait in the queue
	r := reg("c1", "b1", "a1", 0, body(1, "t1", "t2"))
	mustRegister(t, h, r)
	require.True(t, h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: "a1", BrokerName: "b1"}))
	mustRegister(t, h, r) // a newer session before the request is applied
	h.WaitIdle()
	require.NotNil(t, h.Lookup("t1"))
	require.Equal(t, uint64(1), h.Stats().StaleUnregistrations)
}

func TestChannelCloseUnregisters(t *testing.T) {
	h := newHarness(t, true)
	ch := newChan("c")
	r := reg("c1", "b1", "a1", 0, body(1, "t1", "t2"))
	r.Channel = ch
	mustRegister(t, h, r)
	h.OnChannelClose(newChan("other"))
	h.OnChannelClose(nil)
	h.WaitIdle()
	require.NotNil(t, h.Lookup("t1"))

	h.OnChannelClose(ch)
	h.WaitIdle()
	require.Nil(t, h.Lookup("t1"))
	require.False(t, ch.closed.Load(), "channel close does not close again")
}

func TestStopAppliesQueued(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	require.True(t, h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: "a1", BrokerName: "b1"}))
	h.Start()
	h.Stop()
	require.Nil(t, h.Lookup("t1"))
	h.Stop() // idempotent
}
