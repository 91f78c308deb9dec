//go:build embedded_controller

package controller

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/remoting"
)

func inactive(name string, id int64, reason liveness.Reason) liveness.Inactive {
	return liveness.Inactive{Identity: liveness.Identity{ClusterName: "c", BrokerName: name, BrokerID: id}, Reason: reason}
}

func TestExpiryQueueCoalescesAndBounds(t *testing.T) {
	q := newInactiveQueue()
	require.Zero(t, q.add([]liveness.Inactive{inactive("b", 2, liveness.ReasonTimeout), inactive("a", 1, liveness.ReasonTimeout)}))
	require.Zero(t, q.add([]liveness.Inactive{inactive("b", 2, liveness.ReasonConnClosed)}))
	require.Len(t, q.wake, 1, "any number of adds leaves one wake-up")
	require.Equal(t, []liveness.Inactive{inactive("a", 1, liveness.ReasonTimeout), inactive("b", 2, liveness.ReasonConnClosed)}, q.take(),
		"sorted; a later event of the same broker replaces the pending one")
	require.Empty(t, q.take())

	full := make([]liveness.Inactive, maxPendingInactive+10)
	for i := range full {
		full[i] = inactive("s"+strconv.Itoa(i), 1, liveness.ReasonConnClosed)
	}
	require.Equal(t, 10, q.add(full))
	require.Equal(t, maxPendingInactive, q.size())
	require.Zero(t, q.add(full[:1]), "a pending broker is replaced, not counted")
	require.Len(t, q.take(), maxPendingInactive)
	require.Zero(t, q.size())
}

func TestInactiveMastersOnePerSet(t *testing.T) {
	f := newTestFSM(t)
	for _, name := range []string{"a", "b", "d"} {
		registerSet(f, "c", name, 2)
		f.apply(electMasterEvent{NewMasterElected: true, BrokerName: name, NewMasterBrokerID: 1})
	}
	evs := []liveness.Inactive{inactive("a", 1, liveness.ReasonTimeout), inactive("a", 2, liveness.ReasonTimeout),
		inactive("b", 2, liveness.ReasonConnClosed), inactive("d", 1, liveness.ReasonConnClosed), inactive("x", 1, liveness.ReasonConnClosed)}
	evs = append(evs, liveness.Inactive{Identity: liveness.Identity{ClusterName: "other", BrokerName: "d", BrokerID: 1}, Reason: liveness.ReasonTimeout})
	liveness.SortEvents(evs)
	var got []string
	f.fsm.read(func(s *state) {
		for _, ev := range inactiveMasters(s, evs) {
			got = append(got, ev.BrokerName)
		}
	})
	require.Equal(t, []string{"a", "d"}, got, "only masters, one event per set")
}

// stormFleet is sets of two brokers on one controller: each broker beats
// on its own connection, broker 1 is master, the sync-state set is {1,2}.
type stormFleet struct {
	ctl   *Controller
	conns map[string][]*remoting.Client // set → its brokers' connections (index id-1)
}

func newStormFleet(t *testing.T, ctl *Controller, sets int) *stormFleet {
	t.Helper()
	f := &stormFleet{ctl: ctl, conns: map[string][]*remoting.Client{}}
	for i := range sets {
		name := fmt.Sprintf("set-%03d", i)
		for id := int64(1); id <= 2; id++ {
			addr := fmt.Sprintf("10.1.%d.%d:10911", i, id)
			apply := map[string]string{"clusterName": "c", "brokerName": name,
				"appliedBrokerId": strconv.FormatInt(id, 10), "registerCheckCode": addr + ";1"}
			require.Equal(t, codeSuccess, invoke(t, ctl.Addr(), remoting.ControllerApplyBrokerID, apply, nil).Code)
			f.conns[name] = append(f.conns[name], f.beat(t, nil, name, id, addr))
		}
		elect := map[string]string{"clusterName": "c", "brokerName": name, "brokerId": "1", "designateElect": "false"}
		require.Equal(t, codeSuccess, invoke(t, ctl.Addr(), remoting.ControllerElectMaster, elect, nil).Code)
		alter := map[string]string{"brokerName": name, "masterBrokerId": "1", "masterEpoch": "1"}
		resp := invoke(t, ctl.Addr(), remoting.ControllerAlterSyncStateSet, alter, []byte(`{"syncStateSet":[1,2],"syncStateSetEpoch":1}`))
		require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	}
	return f
}

// beat sends one 904 (60 s timeout) on c, dialling a connection when c is nil.
func (f *stormFleet) beat(t *testing.T, c *remoting.Client, name string, id int64, addr string) *remoting.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if c == nil {
		var err error
		c, err = remoting.Dial(ctx, f.ctl.Addr(), remoting.ClientOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
	}
	ext := map[string]string{"clusterName": "c", "brokerName": name, "brokerAddr": addr,
		"brokerId": strconv.FormatInt(id, 10), "heartbeatTimeoutMills": "60000"}
	resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.BrokerHeartbeat, ext, nil))
	require.NoError(t, err)
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	return c
}

func countPrefix(items []string, prefix string) int {
	n := 0
	for _, it := range items {
		if strings.HasPrefix(it, prefix) {
			n++
		}
	}
	return n
}

// TestCloseStormIsOnePass: the masters of 40 sets lose their connections
// while the expiry worker is held up (the test holds the FSM's lock); the
// closes make at most two passes (the first may have taken the first
// events before it blocked), every failed set gets exactly one election
// (master epoch 1 → 2, one "inactive" loop each, all code 0) and the
// live sets none: among them one whose master also beats on a second
// connection, which keeps its entry when the first closes.
func TestCloseStormIsOnePass(t *testing.T) {
	const sets, failed = 48, 40
	ic := newCluster(t, 1)
	ctl := ic.leader(t)
	fleet := newStormFleet(t, ctl, sets)
	twice := fmt.Sprintf("set-%03d", failed) // live: its master beats on two connections
	fleet.beat(t, nil, twice, 1, "10.1.40.1:10911")
	q := ctl.inactive.Load()
	require.NotNil(t, q)
	passes0 := q.passes.Load()

	ctl.fsm.mu.Lock()
	for i := range failed + 1 {
		require.NoError(t, fleet.conns[fmt.Sprintf("set-%03d", i)][0].Close())
	}
	require.Eventually(t, func() bool { return q.added.Load() >= failed }, 10*time.Second, time.Millisecond)
	ctl.fsm.mu.Unlock()

	require.Eventually(t, func() bool {
		epochs := ctl.MasterEpochs()
		for i := range failed {
			if epochs[fmt.Sprintf("set-%03d", i)] != 2 {
				return false
			}
		}
		elections, _ := ic.obs[ctl.Node().ID()].snapshot()
		return countPrefix(elections, "inactive:") == failed
	}, 20*time.Second, 5*time.Millisecond)
	passes := q.passes.Load() - passes0
	t.Logf("%d closes of masters' connections: %d pass(es)", failed+1, passes)
	require.LessOrEqual(t, passes, uint64(2))
	require.Equal(t, uint64(failed), q.added.Load(), "the second connection kept its broker's entry")
	elections, _ := ic.obs[ctl.Node().ID()].snapshot()
	require.Equal(t, failed, countPrefix(elections, "inactive:0"), "%v", elections)
	epochs := ctl.MasterEpochs()
	for i := failed; i < sets; i++ {
		require.Equal(t, int32(1), epochs[fmt.Sprintf("set-%03d", i)], "live set %d", i)
	}
	require.True(t, ctl.hb.IsActive("c", twice, 1))
}

// TestStrangerConnChurnGrowsNothing: a stranger opens connections, beats
// on each for brokers of sets that do not exist and closes it, many times;
// afterwards the heartbeat table, the connection map, the expiry queue and
// the goroutines are back where they were.
func TestStrangerConnChurnGrowsNothing(t *testing.T) {
	ic := newCluster(t, 1)
	ctl := ic.leader(t)
	fleet := &stormFleet{ctl: ctl}
	q := ctl.inactive.Load()
	goroutines := runtime.NumGoroutine()
	const conns, perConn = 200, 8
	for i := range conns {
		var c *remoting.Client
		for j := range perConn {
			c = fleet.beat(t, c, fmt.Sprintf("ghost-%d-%d", i, j), 1, "10.9.9.9:1")
		}
		require.NoError(t, c.Close())
	}
	require.Eventually(t, func() bool {
		return q.added.Load() == conns*perConn && q.size() == 0 && ctl.hb.Size() == 0 && connCount(ctl) == 0 &&
			runtime.NumGoroutine() <= goroutines+2
	}, 20*time.Second, 5*time.Millisecond, "table %d, conns %d, queue %d, goroutines %d (were %d)",
		ctl.hb.Size(), connCount(ctl), q.size(), runtime.NumGoroutine(), goroutines)
	elections, _ := ic.obs[ctl.Node().ID()].snapshot()
	require.Empty(t, elections)
	t.Logf("%d connections, %d ghost brokers: %d expiry passes", conns, conns*perConn, q.passes.Load())
}

func connCount(c *Controller) int {
	n := 0
	c.conns.Range(func(any, any) bool { n++; return true })
	return n
}

// TestOnewayHeartbeatIsRecordedAndUnanswered: a oneway 904 (how Java
// brokers beat) is recorded and answers nothing; a synchronous one still
// gets its reply on the same connection.
func TestOnewayHeartbeatIsRecordedAndUnanswered(t *testing.T) {
	ic := newCluster(t, 1)
	ctl := ic.leader(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, ctl.Addr(), remoting.ClientOptions{})
	require.NoError(t, err)
	defer c.Close()
	ext := map[string]string{"clusterName": "c", "brokerName": "ow", "brokerAddr": "10.0.0.1:1", "brokerId": "1"}
	require.NoError(t, c.InvokeOneway(remoting.NewRequest(remoting.BrokerHeartbeat, ext, nil)))
	require.Eventually(t, func() bool { return ctl.hb.IsActive("c", "ow", 1) }, 10*time.Second, time.Millisecond)
	ext["brokerId"] = "2"
	resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.BrokerHeartbeat, ext, nil))
	require.NoError(t, err)
	require.Equal(t, codeSuccess, resp.Code)
	require.True(t, ctl.hb.IsActive("c", "ow", 2))
}

// TestAttackCloseStormGoroutinesBounded: a stranger's connections each
// beat for 64 brokers of sets that do not exist, then close, while the
// FSM is busy (the test holds its lock). A goroutine per removed broker
// waiting for the FSM would make 1,280 here (hundreds of thousands when a
// few thousand connections close at once); they wait in the pending set
// of one worker instead.
func TestAttackCloseStormGoroutinesBounded(t *testing.T) {
	const conns = 20
	ic := newCluster(t, 1)
	ctl := ic.leader(t)
	fleet := &stormFleet{ctl: ctl}
	var clients []*remoting.Client
	for i := range conns {
		var c *remoting.Client
		for j := range liveness.MaxEntriesPerConn {
			c = fleet.beat(t, c, fmt.Sprintf("ghost-%d-%d", i, j), 1, "10.9.9.9:1")
		}
		clients = append(clients, c)
	}
	tableLen := ctl.hb.Entries
	before := runtime.NumGoroutine()
	ctl.fsm.mu.Lock()
	for _, c := range clients {
		require.NoError(t, c.Close())
	}
	require.Eventually(t, func() bool { return tableLen() == 0 }, 20*time.Second, time.Millisecond)
	grown := runtime.NumGoroutine() - before
	ctl.fsm.mu.Unlock()
	t.Logf("%d brokers removed while the FSM was busy: %d more goroutines", conns*liveness.MaxEntriesPerConn, grown)
	require.Less(t, grown, 16, "goroutines grew with the removed brokers")
}
