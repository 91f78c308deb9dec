//go:build embedded_controller

package controller

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// callAs sends one request with the given header encoding (the RocketMQ
// binary header carries a name's bytes as sent; JSON would already have
// replaced invalid UTF-8) and reads its response.
func (a *attackConn) callAs(t *testing.T, st remoting.SerializeType, code int32, ext map[string]string) *remoting.Command {
	t.Helper()
	a.opaque++
	req := remoting.NewRequest(code, ext, nil)
	req.Opaque, req.SerializeType = a.opaque, st
	frame, err := remoting.AppendFrame(nil, req)
	require.NoError(t, err)
	_, err = a.nc.Write(frame)
	require.NoError(t, err)
	return readResponse(t, a.nc, a.r)
}

// callLeader sends one request to the ready leader of ic, asking again
// (at the leader of the moment) while the answer is 2007: an in-memory
// leader may lose its lease on a loaded machine between two requests.
func (ic *inmemControllers) callLeader(t *testing.T, st remoting.SerializeType, code int32, ext map[string]string) *remoting.Command {
	t.Helper()
	for try := 0; ; try++ {
		resp := dialAttack(t, ic.leader(t).Addr()).callAs(t, st, code, ext)
		if resp.Code != remoting.ControllerNotLeader || try == 20 {
			return resp
		}
	}
}

// storedNames returns the broker set names of every node's state.
func (ic *inmemControllers) storedNames() map[string][]string {
	out := map[string][]string{}
	for id, c := range ic.ctls {
		c.fsm.read(func(s *state) { out[id] = s.BrokerNames() })
	}
	return out
}

func applyIDExt(cluster, broker, id, checkCode string) map[string]string {
	return map[string]string{"clusterName": cluster, "brokerName": broker, "appliedBrokerId": id,
		"registerCheckCode": checkCode}
}

// TestAttackApplyBrokerIDNamesRefused: an
// APPLY_BROKER_ID with an empty, invalid UTF-8 or 1 MiB name was answered
// 0 and stored (an empty name then made every later snapshot undecodable).
// Each is now answered 2005 with a remark naming the field and the rule,
// and no node stores anything.
func TestAttackApplyBrokerIDNamesRefused(t *testing.T) {
	ic := newCluster(t, 3)
	huge := strings.Repeat("b", 1<<20)
	cases := []struct {
		what, cluster, broker, field string
	}{
		{"empty brokerName", "c", "", "brokerName"},
		{"empty clusterName", "", "b", "clusterName"},
		{"invalid UTF-8 brokerName", "c", "b\xff", "brokerName"},
		{"invalid UTF-8 clusterName", "c\xfe", "b", "clusterName"},
		{"1 MiB brokerName", "c", huge, "brokerName"},
		{"1 MiB clusterName", huge, "b", "clusterName"},
		{"control character in brokerName", "c", "b\n2", "brokerName"},
		{"leading space in brokerName", "c", " b", "brokerName"},
	}
	resps := make([]*remoting.Command, len(cases))
	for i, tc := range cases {
		resps[i] = ic.callLeader(t, remoting.SerializeRocketMQ, remoting.ControllerApplyBrokerID,
			applyIDExt(tc.cluster, tc.broker, "1", "127.0.0.1:10911;1"))
		t.Logf("%s: code %d remark %.120q", tc.what, resps[i].Code, resps[i].Remark)
	}
	t.Logf("stored: %.200q", ic.storedNames())
	for i, tc := range cases {
		require.Equal(t, remoting.ControllerInvalidRequest, resps[i].Code, "%s: %s", tc.what, resps[i].Remark)
		require.Contains(t, resps[i].Remark, tc.field)
	}
	for id, names := range ic.storedNames() {
		require.Empty(t, names, "node %s stored a refused name", id)
	}
}

// TestAttackInvalidUTF8NamesDoNotShareASet: b\xff and
// b\xfe both became b\uFFFD through the log's JSON, so the builder (which
// saw two unknown sets) and the FSM (one set) disagreed and two brokers
// were told they hold id 1. Both are refused now; a valid name still works.
func TestAttackInvalidUTF8NamesDoNotShareASet(t *testing.T) {
	ic := newCluster(t, 1)
	leader := ic.leader(t)
	a := dialAttack(t, leader.Addr())
	var codes []int32
	for i, name := range []string{"b\xff", "b\xfe"} {
		resp := a.callAs(t, remoting.SerializeRocketMQ, remoting.ControllerApplyBrokerID,
			applyIDExt("c", name, "1", "127.0.0.1:1091"+string(rune('1'+i))+";1"))
		codes = append(codes, resp.Code)
	}
	t.Logf("1013 for b\\xff then b\\xfe, id 1 each: codes %v, stored %q", codes, ic.storedNames())
	require.Equal(t, []int32{remoting.ControllerInvalidRequest, remoting.ControllerInvalidRequest}, codes)
	resp := a.callAs(t, remoting.SerializeRocketMQ, remoting.ControllerApplyBrokerID,
		applyIDExt("DefaultCluster", "broker-a", "1", "127.0.0.1:10911;1"))
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	require.Equal(t, []string{"broker-a"}, ic.storedNames()[leader.opts.node.ID()])
}

// TestAttackHeartbeatNamesBounded: BROKER_HEARTBEAT (904) is not
// replicated, but its table kept any name: one connection's 64 entries with
// 1 MiB cluster and broker names held 128 MiB (and 10,000 connections
// could hold that each). Heartbeats whose names or address break the rules
// of the replicated state (with its hard ceilings) are answered 2005.
func TestAttackHeartbeatNamesBounded(t *testing.T) {
	ic := newCluster(t, 1)
	leader := ic.leader(t)
	a := dialAttack(t, leader.Addr())
	heap0 := heapInUse()
	refused := 0
	for i := range 64 {
		name := fmt.Sprintf("%02d%s", i, strings.Repeat("h", 1<<20))
		resp := a.call(t, remoting.BrokerHeartbeat, map[string]string{"clusterName": name, "brokerName": name,
			"brokerAddr": "127.0.0.1:10911", "brokerId": "1", "heartbeatTimeoutMills": "60000"})
		if resp.Code == remoting.ControllerInvalidRequest {
			refused++
		}
	}
	growth := int64(heapInUse()) - int64(heap0)
	t.Logf("64 heartbeats with 1 MiB cluster and broker names: %d refused, heap %+.1f MiB", refused, float64(growth)/(1<<20))
	require.Equal(t, 64, refused)
	resp := a.call(t, remoting.BrokerHeartbeat, map[string]string{"clusterName": "DefaultCluster",
		"brokerName": "broker-a", "brokerAddr": "127.0.0.1:10911", "brokerId": "1"})
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
}
