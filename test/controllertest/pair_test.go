//go:build embedded_controller

package controllertest

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// heartbeatInterval is the fake brokers' beat period (Java: 1000 ms).
const heartbeatInterval = 200 * time.Millisecond

// pair is one broker set with a master and a slave, both in the
// sync-state set, tracked through failovers.
type pair struct {
	t             testing.TB
	master, slave *fakeBroker
	masterEpoch   int
	ssEpoch       int
}

// newPair runs docs/controller.md section 7 steps 3-8 for two brokers of
// broker-a: ids 1 and 2, register, heartbeat, first election (broker 1), the
// second broker's 2011, and the sync-state set grown to {1,2}. Both then beat
// periodically.
func newPair(t testing.TB, ctlAddrs []string, hbTimeout time.Duration) *pair {
	t.Helper()
	a := newFakeBroker(t, "DefaultCluster", "broker-a", ctlAddrs, hbTimeout)
	b := newFakeBroker(t, "DefaultCluster", "broker-a", ctlAddrs, hbTimeout)
	require.EqualValues(t, 1, a.applyID())
	require.EqualValues(t, 2, b.applyID())
	for _, x := range []*fakeBroker{a, b} {
		resp := x.register()
		require.NotContains(t, resp.ExtFields, "masterBrokerId", "no master before the first election")
		x.heartbeatSync()
	}
	requireElected(t, a.elect(), "1")
	resp := b.elect()
	require.Equal(t, remoting.ControllerMasterStillExist, resp.Code, resp.Remark)
	require.Equal(t, a.addr, resp.ExtFields["masterAddress"])
	p := &pair{t: t, master: a, slave: b, masterEpoch: 1, ssEpoch: 1}
	p.growSyncStateSet()
	a.StartHeartbeats(heartbeatInterval)
	b.StartHeartbeats(heartbeatInterval)
	return p
}

// requireElected checks the answer to a broker's first 1002 of its set:
// master id at masterEpoch 1. It is 0, or 2011 naming the same master when
// brokerflow sent it again after an answer of 1 whose entry had landed.
func requireElected(t testing.TB, resp *remoting.Command, id string) {
	t.Helper()
	require.Contains(t, []int32{remoting.Success, remoting.ControllerMasterStillExist}, resp.Code, resp.Remark)
	require.Equal(t, id, resp.ExtFields["masterBrokerId"])
	require.Equal(t, "1", resp.ExtFields["masterEpoch"])
}

// growSyncStateSet is the master's 1001 adding the slave (docs/controller.md
// section 7 step 8).
func (p *pair) growSyncStateSet() {
	p.t.Helper()
	ids := []int64{p.master.id, p.slave.id}
	if ids[0] > ids[1] {
		ids[0], ids[1] = ids[1], ids[0]
	}
	p.alterCommitted(ids...)
}

// alterCommitted is the master's 1001 naming ids, sent again until it is
// committed; it returns how many answers left the outcome unknown. An
// answer of 1 (the controller leader lost its lease while the entry was in
// flight, or the 5 s deadline passed) says nothing of the entry, which
// may still be committed by the next leader; the set's epoch in 1004
// (from a leader past its Barrier, so every committed entry is applied)
// tells, as the broker's periodic 1004 would.
func (p *pair) alterCommitted(ids ...int64) (unknown int) {
	p.t.Helper()
	for {
		resp := p.master.alter(p.masterEpoch, p.ssEpoch, ids...)
		if resp.Code == remoting.Success {
			p.ssEpoch++
			require.Equal(p.t, strconv.Itoa(p.ssEpoch), resp.ExtFields["newSyncStateSetEpoch"])
			return unknown
		}
		require.Equal(p.t, remoting.SystemError, resp.Code, "alter to %v at epoch %d: %s", ids, p.ssEpoch, resp.Remark)
		unknown++
		epoch := p.syncStateSetEpoch()
		p.t.Logf("alter to %v at epoch %d answered 1 (%s); 1004 says epoch %d", ids, p.ssEpoch, resp.Remark, epoch)
		require.Contains(p.t, []int{p.ssEpoch, p.ssEpoch + 1}, epoch, "sync-state set epoch after an unknown alter")
		if epoch == p.ssEpoch+1 {
			p.ssEpoch++
			return unknown
		}
	}
}

// syncStateSetEpoch is the set's epoch in the slave's 1004.
func (p *pair) syncStateSetEpoch() int {
	p.t.Helper()
	resp := p.slave.replicaInfo()
	require.Equal(p.t, remoting.Success, resp.Code, resp.Remark)
	var ss struct {
		Epoch int `json:"syncStateSetEpoch"`
	}
	require.NoError(p.t, json.Unmarshal(resp.Body, &ss))
	return ss.Epoch
}

// failoverOnClose closes every connection of the master and returns the
// time until the slave received the 1008 naming it master.
func (p *pair) failoverOnClose() time.Duration {
	p.t.Helper()
	p.master.StopHeartbeats()
	start := time.Now()
	p.master.CloseConns()
	return p.awaitNewMaster(start)
}

// failoverOnHeartbeatLoss stops the master's heartbeats (its connections
// stay open) and returns the time from its last beat until the slave
// received the 1008 naming it master.
func (p *pair) failoverOnHeartbeatLoss() time.Duration {
	p.t.Helper()
	last := p.master.StopHeartbeats()
	return p.awaitNewMaster(last)
}

// awaitNewMaster waits for the slave's promotion notice, checks it and
// swaps the roles: masterEpoch+1, sync-state set {slave}, ssEpoch+1.
func (p *pair) awaitNewMaster(start time.Time) time.Duration {
	p.t.Helper()
	n, err := p.slave.waitNotice(p.masterEpoch + 1)
	require.NoError(p.t, err)
	elapsed := n.At.Sub(start)
	p.masterEpoch++
	p.ssEpoch++
	require.Equal(p.t, map[string]string{"masterBrokerId": p.slave.ident(), "masterAddress": p.slave.addr,
		"masterEpoch": strconv.Itoa(p.masterEpoch), "syncStateSetEpoch": strconv.Itoa(p.ssEpoch)}, n.Req.ExtFields)
	require.JSONEq(p.t, `{"syncStateSet":[`+p.slave.ident()+`],"syncStateSetEpoch":`+strconv.Itoa(p.ssEpoch)+`}`,
		string(n.Req.Body))
	p.master, p.slave = p.slave, p.master
	return elapsed
}

// rejoin brings the old master back as slave (docs/controller.md section 7
// step 9): fresh connections, 1003 naming the new master, heartbeats; then
// the new master grows the sync-state set again.
func (p *pair) rejoin() {
	p.t.Helper()
	p.slave.CloseConns()
	resp := p.slave.register()
	require.Equal(p.t, p.master.ident(), resp.ExtFields["masterBrokerId"], "registers as slave of the new master")
	require.Equal(p.t, strconv.Itoa(p.masterEpoch), resp.ExtFields["masterEpoch"])
	p.slave.heartbeatSync()
	p.slave.StartHeartbeats(heartbeatInterval)
	p.growSyncStateSet()
}

// requireReplicaInfo checks 1004 against the tracked state.
func (p *pair) requireReplicaInfo() {
	p.t.Helper()
	resp := p.slave.replicaInfo()
	require.Equal(p.t, remoting.Success, resp.Code, resp.Remark)
	require.Equal(p.t, map[string]string{"masterBrokerId": p.master.ident(), "masterAddress": p.master.addr,
		"masterEpoch": strconv.Itoa(p.masterEpoch)}, resp.ExtFields)
	require.Equal(p.t, p.ssEpoch, p.syncStateSetEpoch())
}
