//go:build embedded_controller

package controller

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/remoting"
)

// attackConn is a raw client connection to a controller.
type attackConn struct {
	nc     net.Conn
	r      *bufio.Reader
	opaque int32
}

func dialAttack(t *testing.T, addr string) *attackConn {
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = nc.Close() })
	return &attackConn{nc: nc, r: bufio.NewReader(nc)}
}

// call sends one request and reads its response.
func (a *attackConn) call(t *testing.T, code int32, ext map[string]string) *remoting.Command {
	a.opaque++
	_, err := a.nc.Write(rawFrame(t, code, a.opaque, ext))
	require.NoError(t, err)
	return readResponse(t, a.nc, a.r)
}

// beat sends one heartbeat of broker b/id and reads the answer; false on
// any error (for a background loop, which must not call t.FailNow).
func (a *attackConn) beat(id string) bool {
	a.opaque++
	req := remoting.NewRequest(remoting.BrokerHeartbeat, map[string]string{"clusterName": "c", "brokerName": "b",
		"brokerAddr": "127.0.0.1:10911", "brokerId": id}, nil)
	req.Opaque = a.opaque
	frame, err := remoting.AppendFrame(nil, req)
	if err == nil {
		_, err = a.nc.Write(frame)
	}
	if err == nil {
		_ = a.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = remoting.ReadFrame(a.r, 0, nil)
	}
	return err == nil
}

// TestForeignConnCloseKeepsLiveMaster (from the attack review's
// TestAttackForeignHeartbeatCloseFailsOverLiveMaster): BROKER_HEARTBEAT is
// not authenticated: were a heartbeat on another connection to take the
// entry over, any client could fail over a live master by beating once as
// it and closing its connection. A close removes only that
// connection's part of the entry: the master, still beating on its own
// connection, keeps its role (the set has only the master in its
// sync-state set, so a failover would record "no master").
func TestForeignConnCloseKeepsLiveMaster(t *testing.T) {
	ic := newCluster(t, 1)
	leader := ic.leader(t)
	b1 := dialAttack(t, leader.Addr())
	resp := b1.call(t, remoting.ControllerApplyBrokerID, map[string]string{"clusterName": "c", "brokerName": "b",
		"appliedBrokerId": "1", "registerCheckCode": "127.0.0.1:10911;1"})
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	require.True(t, b1.beat("1"))
	resp = b1.call(t, remoting.ControllerElectMaster, map[string]string{"clusterName": "c", "brokerName": "b",
		"brokerId": "1", "designateElect": "false"})
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)

	var stop atomic.Bool
	done := make(chan struct{})
	go func() { // the live master keeps beating on its own connection
		defer close(done)
		for !stop.Load() && b1.beat("1") {
			time.Sleep(200 * time.Millisecond)
		}
	}()
	defer func() { stop.Store(true); <-done }()

	attacker := dialAttack(t, leader.Addr())
	require.True(t, attacker.beat("1"))
	require.NoError(t, attacker.nc.Close())

	isMaster := func() (ok bool) {
		leader.fsm.read(func(s *state) { ok = s.IsMaster("b", 1) })
		return ok
	}
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end) && isMaster(); {
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("after a foreign connection beat as broker 1 and closed: broker 1 master=%v, master epochs %v",
		isMaster(), leader.MasterEpochs())
	require.True(t, isMaster(), "a live master was failed over by another connection's close")
}

// TestHeartbeatTableBoundedPerConn (from the attack review's
// TestAttackHeartbeatTableUnbounded): BROKER_HEARTBEAT recorded any
// (cluster, broker set, id), known to the controller or not, so one open
// connection grew the table without bound (8,000 heartbeats of made-up
// sets with 4 KiB names: 8,000 entries; Java's table is unbounded too).
// Now one connection beats for at most MaxHeartbeatEntriesPerConn brokers;
// the excess is answered 2005.
func TestHeartbeatTableBoundedPerConn(t *testing.T) {
	const beats, nameLen = 1000, 250 // the longest name a heartbeat may carry (255 bytes)
	ic := newCluster(t, 1)
	leader := ic.leader(t)
	a := dialAttack(t, leader.Addr())
	pad := strings.Repeat("n", nameLen)
	var frames []byte
	for i := range beats {
		req := remoting.NewRequest(remoting.BrokerHeartbeat, map[string]string{"clusterName": "c",
			"brokerName": fmt.Sprintf("%d-%s", i, pad), "brokerAddr": "127.0.0.1:1", "brokerId": "1",
			"heartbeatTimeoutMills": "3600000"}, nil)
		req.Opaque = int32(i + 1)
		frames = remoting.EncodeFrame(frames, req)
	}
	go func() { _, _ = a.nc.Write(frames) }()
	refused := 0
	for range beats {
		if readResponse(t, a.nc, a.r).Code == remoting.ControllerInvalidRequest {
			refused++
		}
	}
	entries := leader.hb.Entries()
	t.Logf("one connection, %d heartbeats of made-up broker sets: %d live entries of ~%d bytes each, %d refused",
		beats, entries, nameLen, refused)
	require.Equal(t, liveness.MaxEntriesPerConn, entries, "the heartbeat table grows without bound")
	require.Equal(t, beats-liveness.MaxEntriesPerConn, refused)
}

// TestLostMasterRetryLoopIsBoundedAndPaced (from the attack review's
// TestAttackRetryCountSpinsTheLog): electMasterMaxRetryCount was updatable
// by UPDATE_CONTROLLER_CONFIG with any positive value and runElection
// retried without pause; each attempt on a set with no live candidate
// appends a "no master" entry that bumps the master epoch, so one lost
// master made the leader spin the log and the int32 epoch. Now the key is
// bounded (1..100) and the loop pauses between attempts: even at the
// largest accepted count the epoch grows by a few within 3 s.
func TestLostMasterRetryLoopIsBoundedAndPaced(t *testing.T) {
	ic := newCluster(t, 1)
	leader := ic.leader(t)
	resp := invoke(t, leader.Addr(), remoting.UpdateControllerConfig, nil, []byte("electMasterMaxRetryCount=2147483647"))
	t.Logf("1009 electMasterMaxRetryCount=2147483647 answered code %d %q", resp.Code, resp.Remark)
	require.NotEqual(t, codeSuccess, resp.Code, "an unbounded retry count is refused")
	resp = invoke(t, leader.Addr(), remoting.UpdateControllerConfig, nil, []byte("electMasterMaxRetryCount=100"))
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	b1 := dialAttack(t, leader.Addr())
	resp = b1.call(t, remoting.ControllerApplyBrokerID, map[string]string{"clusterName": "c", "brokerName": "b",
		"appliedBrokerId": "1", "registerCheckCode": "127.0.0.1:10911;1"})
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	require.True(t, b1.beat("1"))
	resp = b1.call(t, remoting.ControllerElectMaster, map[string]string{"clusterName": "c", "brokerName": "b",
		"brokerId": "1", "designateElect": "false"})
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	require.NoError(t, b1.nc.Close()) // the master goes away; no other replica

	var epoch int32
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end) && epoch <= 20; {
		epoch = leader.MasterEpochs()["b"]
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("master epoch of b %d, raft last index %s", epoch, leader.RaftStats()["last_log_index"])
	leader.stopping.Store(true) // end the loop before cleanup
	require.LessOrEqual(t, epoch, int32(20), "one lost master made the leader spin the log")
}

// TestForeignHeartbeatDelaysFailoverAtMostTheCap (from the attack review's
// TestAttackForeignHeartbeatHidesDeadMaster): a client that beat once as
// the master with heartbeatTimeoutMills=3600000 took the entry over, so the
// real master's close evicted nothing and its set was not failed over for
// up to an hour. Without authentication (anyone may beat for a broker, as
// in Java) the foreign heartbeat's own part of the entry still counts, but
// only for its own timeout, now capped at MaxHeartbeatTimeoutMillis (60 s;
// Java brokers announce 10 s): the master's close drops the master's part,
// and once the foreign part expires the set fails over. The test drives a
// fake clock past the cap.
func TestForeignHeartbeatDelaysFailoverAtMostTheCap(t *testing.T) {
	clock := newFakeClock()
	ic := newCluster(t, 1, withOptions(WithClock(clock)))
	leader := ic.leader(t)
	b1 := dialAttack(t, leader.Addr())
	resp := b1.call(t, remoting.ControllerApplyBrokerID, map[string]string{"clusterName": "c", "brokerName": "b",
		"appliedBrokerId": "1", "registerCheckCode": "127.0.0.1:10911;1"})
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	require.True(t, b1.beat("1"))
	resp = b1.call(t, remoting.ControllerElectMaster, map[string]string{"clusterName": "c", "brokerName": "b",
		"brokerId": "1", "designateElect": "false"})
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)

	attacker := dialAttack(t, leader.Addr())
	resp = attacker.call(t, remoting.BrokerHeartbeat, map[string]string{"clusterName": "c", "brokerName": "b",
		"brokerAddr": "127.0.0.1:10911", "brokerId": "1", "heartbeatTimeoutMills": "3600000"})
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	info, ok := leader.hb.LiveInfo("c", "b", 1)
	require.True(t, ok)
	require.Equal(t, int64(60_000), info.TimeoutMillis, "the claimed hour is capped at 60 s")
	require.NoError(t, b1.nc.Close()) // the real master dies
	require.Eventually(t, func() bool { return leader.hb.ConnCount("c", "b", 1) == 1 }, 5*time.Second, 10*time.Millisecond,
		"the master's close drops its part of the entry")

	isMaster := func() (ok bool) {
		leader.fsm.read(func(s *state) { ok = s.IsMaster("b", 1) })
		return ok
	}
	clock.Advance(60*time.Second + time.Millisecond)
	leader.hb.Scan()
	require.Eventually(t, func() bool { return !isMaster() }, 5*time.Second, 10*time.Millisecond,
		"a dead master stays master past the capped timeout of a foreign heartbeat")
	t.Logf("once the foreign heartbeat's capped 60 s passed: broker 1 master=%v, epochs %v",
		isMaster(), leader.MasterEpochs())
}
