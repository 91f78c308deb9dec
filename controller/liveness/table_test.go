//go:build embedded_controller

package liveness

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

type hbEnv struct {
	m      *Table
	clock  *fakeClock
	mu     sync.Mutex
	events []Inactive
	closed []ConnID
}

func newHBEnv(t *testing.T) *hbEnv {
	e := &hbEnv{clock: newFakeClock()}
	e.m = New(Options{Clock: e.clock, Logger: testLogger(t),
		OnInactive: func(evs []Inactive) { e.mu.Lock(); e.events = append(e.events, evs...); e.mu.Unlock() },
		CloseConn:  func(c ConnID) { e.mu.Lock(); e.closed = append(e.closed, c); e.mu.Unlock() }})
	return e
}

func (e *hbEnv) reported() []Inactive {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Inactive(nil), e.events...)
}

func beat(id int64, addr string, epoch int32, maxOffset int64) wire.BrokerHeartbeatRequest {
	return wire.BrokerHeartbeatRequest{ClusterName: "c", BrokerName: "b", BrokerAddr: addr, BrokerID: ptr(id),
		Epoch: ptr(epoch), MaxOffset: ptr(maxOffset), ConfirmOffset: ptr(maxOffset - 1),
		HeartbeatTimeoutMillis: ptr(int64(3000)), ElectionPriority: ptr(int32(7))}
}

func TestHeartbeatDefaultsAndMonotonicOffsets(t *testing.T) {
	e := newHBEnv(t)
	err := e.m.OnHeartbeat(wire.BrokerHeartbeatRequest{ClusterName: "c", BrokerName: "b", BrokerAddr: "a"}, 1)
	require.ErrorIs(t, err, ErrRefused)
	require.Equal(t, "Heart beat with empty brokerId", err.Error())

	require.NoError(t, e.m.OnHeartbeat(wire.BrokerHeartbeatRequest{ClusterName: "c", BrokerName: "b", BrokerAddr: "a", BrokerID: ptr(int64(1))}, 1))
	info, ok := e.m.LiveInfo("c", "b", 1)
	require.True(t, ok)
	require.Equal(t, Info{Identity: Identity{"c", "b", 1}, BrokerAddr: "a",
		LastUpdateMillis: e.clock.Now().UnixMilli(), TimeoutMillis: 10000, Conn: 1, Generation: 1,
		Epoch: -1, MaxOffset: -1, ConfirmOffset: -1, ElectionPriority: 2147483647}, info)

	steps := []struct {
		epoch      int32
		offset     int64
		wantEpoch  int32
		wantOffset int64
	}{
		{2, 100, 2, 100},
		{2, 50, 2, 100},  // lower offset, same epoch: kept
		{1, 500, 2, 100}, // lower epoch: kept
		{2, 150, 2, 150},
		{3, 10, 3, 10}, // higher epoch wins with a lower offset
	}
	for _, s := range steps {
		e.clock.Advance(time.Second)
		require.NoError(t, e.m.OnHeartbeat(beat(1, "a", s.epoch, s.offset), 1))
		info, _ = e.m.LiveInfo("c", "b", 1)
		require.Equal(t, s.wantEpoch, info.Epoch)
		require.Equal(t, s.wantOffset, info.MaxOffset)
		require.Equal(t, s.wantOffset-1, info.ConfirmOffset)
		require.Equal(t, int64(3000), info.TimeoutMillis, "timeout always refreshed")
		require.Equal(t, int32(7), info.ElectionPriority, "priority always refreshed")
		require.Equal(t, e.clock.Now().UnixMilli(), info.LastUpdateMillis)
		require.Equal(t, uint64(1), info.Generation)
	}
}

func TestHeartbeatExpiryScan(t *testing.T) {
	e := newHBEnv(t)
	require.NoError(t, e.m.OnHeartbeat(beat(2, "a2", 0, 0), 12))
	require.NoError(t, e.m.OnHeartbeat(beat(1, "a1", 0, 0), 11))
	e.clock.Advance(2 * time.Second)
	require.NoError(t, e.m.OnHeartbeat(beat(2, "a2", 0, 0), 12))
	e.clock.Advance(1 * time.Second) // broker 1 at exactly last+timeout: still active
	require.True(t, e.m.IsActive("c", "b", 1))
	require.Empty(t, e.m.Scan())
	e.clock.Advance(time.Millisecond)
	require.False(t, e.m.IsActive("c", "b", 1))
	require.True(t, e.m.IsActive("c", "b", 2))
	require.False(t, e.m.IsActive("other", "b", 2), "cluster is part of the key")
	evs := e.m.Scan()
	require.Equal(t, []Inactive{{Identity: Identity{"c", "b", 1}, BrokerAddr: "a1", Conn: 11,
		Generation: 2, Reason: ReasonTimeout}}, evs)
	require.Equal(t, evs, e.reported())
	require.Equal(t, []ConnID{11}, e.closed)
	_, ok := e.m.LiveInfo("c", "b", 1)
	require.False(t, ok)
}

// TestStaleConnCloseDoesNotEvictReconnectedBroker is apache/rocketmq#11045:
// the broker reconnects on a new connection before the old one's close is
// processed; that late close must not evict it.
func TestStaleConnCloseDoesNotEvictReconnectedBroker(t *testing.T) {
	e := newHBEnv(t)
	require.NoError(t, e.m.OnHeartbeat(beat(1, "old:1", 5, 500), 100))
	e.clock.Advance(time.Second)
	require.NoError(t, e.m.OnHeartbeat(beat(1, "new:1", 4, 10), 200))
	info, _ := e.m.LiveInfo("c", "b", 1)
	require.Equal(t, ConnID(200), info.Conn)
	require.Equal(t, "new:1", info.BrokerAddr, "address follows the new connection")
	require.Equal(t, int32(4), info.Epoch, "a new connection is a new incarnation")
	require.Equal(t, uint64(2), info.Generation)

	require.Empty(t, e.m.OnConnClose(100), "stale close")
	require.True(t, e.m.IsActive("c", "b", 1))
	require.Empty(t, e.reported())

	evs := e.m.OnConnClose(200)
	require.Equal(t, []Inactive{{Identity: Identity{"c", "b", 1}, BrokerAddr: "new:1", Conn: 200,
		Generation: 2, Reason: ReasonConnClosed}}, evs)
	require.False(t, e.m.IsActive("c", "b", 1))
	require.Empty(t, e.closed, "a closed connection is not closed again")
	require.Empty(t, e.m.OnConnClose(0))
}

func TestConnCloseReportsEveryBrokerOnTheConnection(t *testing.T) {
	e := newHBEnv(t)
	require.NoError(t, e.m.OnHeartbeat(beat(2, "a", 0, 0), 7))
	require.NoError(t, e.m.OnHeartbeat(beat(1, "a", 0, 0), 7))
	require.NoError(t, e.m.OnHeartbeat(beat(3, "b", 0, 0), 8))
	evs := e.m.OnConnClose(7)
	require.Len(t, evs, 2)
	require.Equal(t, int64(1), evs[0].BrokerID)
	require.Equal(t, int64(2), evs[1].BrokerID)
	require.True(t, e.m.IsActive("c", "b", 3))
}

func TestHeartbeatUnknownConnKeepsEntry(t *testing.T) {
	e := newHBEnv(t)
	require.NoError(t, e.m.OnHeartbeat(beat(1, "a", 0, 0), 5))
	require.NoError(t, e.m.OnHeartbeat(beat(1, "a", 0, 0), 0))
	info, _ := e.m.LiveInfo("c", "b", 1)
	require.Equal(t, ConnID(5), info.Conn)
	require.Equal(t, uint64(1), info.Generation)
}

func TestHeartbeatRunScansPeriodically(t *testing.T) {
	e := newHBEnv(t)
	require.NoError(t, e.m.OnHeartbeat(beat(1, "a", 0, 0), 5))
	e.clock.Advance(time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.m.Run(ctx, time.Millisecond, time.Millisecond); close(done) }()
	require.Eventually(t, func() bool { return len(e.reported()) == 1 }, 5*time.Second, time.Millisecond)
	cancel()
	<-done
}

// Broker-supplied heartbeatTimeoutMills at the int64 extremes: no overflow
// may leave a broker inactive but never scanned out, or expire it at once.
// Non-positive values count as absent (10 s); larger ones are capped at
// MaxHeartbeatTimeoutMillis.
func TestHeartbeatTimeoutBounds(t *testing.T) {
	cases := []struct {
		name    string
		timeout int64
		want    int64
	}{
		{"max int64", math.MaxInt64, maxHeartbeatTimeoutMillis},
		{"max int64 - now", math.MaxInt64 - 1_700_000_000_000, maxHeartbeatTimeoutMillis},
		{"min int64", math.MinInt64, DefaultTimeoutMillis},
		{"minus one", -1, DefaultTimeoutMillis},
		{"zero", 0, DefaultTimeoutMillis},
		{"in range", 2500, 2500},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newHBEnv(t)
			req := beat(1, "a1", 0, 0)
			req.HeartbeatTimeoutMillis = ptr(c.timeout)
			require.NoError(t, e.m.OnHeartbeat(req, 1))
			require.True(t, e.m.IsActive("c", "b", 1), "active right after its heartbeat")
			require.Empty(t, e.m.Scan())
			info, _ := e.m.LiveInfo("c", "b", 1)
			require.Equal(t, c.want, info.TimeoutMillis)
			e.clock.Advance(time.Duration(c.want) * time.Millisecond)
			require.True(t, e.m.IsActive("c", "b", 1))
			require.Empty(t, e.m.Scan())
			e.clock.Advance(time.Millisecond)
			require.False(t, e.m.IsActive("c", "b", 1))
			require.Len(t, e.m.Scan(), 1, "expired and scanned out")
		})
	}
}
