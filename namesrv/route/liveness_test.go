package route

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

func TestScanExpiredClosesAndRemoves(t *testing.T) {
	h := newHarness(t, true)
	ch := newChan("c")
	r := reg("c1", "b1", "a1", 0, body(1, "t1", "t2"))
	r.Channel = ch
	mustRegister(t, h, r)
	start := h.clock.Mono()

	require.Equal(t, 0, h.ScanExpired(start.Add(DefaultBrokerTimeout)), "last + timeout < now, strictly")
	require.False(t, ch.closed.Load())

	require.Equal(t, 1, h.ScanExpired(start.Add(time.Hour)))
	require.True(t, ch.closed.Load())
	h.OnChannelClose(ch) // what the transport does next: a harmless duplicate
	h.WaitIdle()
	require.Nil(t, h.Lookup("t1"))
	require.Empty(t, h.ClusterInfo().BrokerAddrTable)
	st := h.Stats()
	require.Equal(t, uint64(1), st.Expiries)
	require.Equal(t, 0, st.LiveBrokers)
}

func TestHeartbeatTimeoutMillisAndRefresh(t *testing.T) {
	h := newHarness(t, false)
	r := reg("c1", "b1", "a1", 0, body(1, "t1", "t2"))
	r.HeartbeatTimeoutMillis = 10_000
	mustRegister(t, h, r)
	start := h.clock.Mono()
	require.Equal(t, 1, h.ScanExpired(start.Add(11*time.Second)))
	h.WaitIdle()

	mustRegister(t, h, r)
	h.clock.Advance(8 * time.Second)
	h.Heartbeat("c1", "a1")
	require.Equal(t, 0, h.ScanExpired(start.Add(17*time.Second)), "heartbeat moved the deadline")
	dv := r.Body.DataVersion
	h.clock.Advance(8 * time.Second)
	changed, stored := h.QueryDataVersion("c1", "a1", &dv)
	require.False(t, changed)
	require.Equal(t, &dv, stored)
	require.Equal(t, 0, h.ScanExpired(start.Add(25*time.Second)), "query data version refreshes too")
	require.Equal(t, 1, h.ScanExpired(start.Add(27*time.Second)))
}

func TestHeartbeatUnknownIsNoop(t *testing.T) {
	h := newHarness(t, false)
	h.Heartbeat("c1", "nobody")
	require.Equal(t, 0, h.Stats().LiveBrokers)
	changed, stored := h.QueryDataVersion("c1", "nobody", &wire.DataVersion{})
	require.True(t, changed)
	require.Nil(t, stored)
}

func TestQueryDataVersion(t *testing.T) {
	h := newHarness(t, false)
	b := body(3, "t1", "t2")
	b.DataVersion.StateVersion = 2
	mustRegister(t, h, reg("c1", "b1", "a1", 0, b))
	want := b.DataVersion

	changed, stored := h.QueryDataVersion("c1", "a1", &wire.DataVersion{Counter: 3, Timestamp: 1, StateVersion: 2})
	require.False(t, changed)
	require.Equal(t, want, *stored)
	for _, dv := range []*wire.DataVersion{nil, {Counter: 4, Timestamp: 1, StateVersion: 2},
		{Counter: 3, Timestamp: 2, StateVersion: 2}, {Counter: 3, Timestamp: 1}} {
		changed, stored = h.QueryDataVersion("c1", "a1", dv)
		require.True(t, changed, "%v", dv)
		require.Equal(t, want, *stored)
	}
	changed, _ = h.QueryDataVersion("c2", "a1", &want)
	require.True(t, changed, "the live key includes the cluster")
}

// 10,000 live brokers, 1,000 expired: the scan visits only the expired.
func TestExpiryIndexVisitsOnlyExpired(t *testing.T) {
	h := newHarness(t, false, func(o *Options) { o.UnregisterQueueCap = 2000 })
	h.Manager.log = testLogger(t).Named("quiet")
	h.Manager.log.SetLevel(5) // error only: 1,000 warnings are noise
	for i := range 10_000 {
		r := reg("c1", fmt.Sprintf("b%d", i), fmt.Sprintf("a%d", i), 0, nil)
		if i%10 == 0 {
			r.HeartbeatTimeoutMillis = 1000
		}
		mustRegister(t, h, r)
	}
	before := h.counts.expiryVisits.Load()
	require.Equal(t, 1000, h.ScanExpired(h.clock.Mono().Add(2*time.Second)))
	require.Equal(t, uint64(1000), h.counts.expiryVisits.Load()-before)
	require.Equal(t, 0, h.ScanExpired(h.clock.Mono().Add(2*time.Second)), "expired entries left the heap")
	h.WaitIdle()
	require.Equal(t, 9000, h.Stats().LiveBrokers)
	require.Equal(t, 9000, h.Stats().Brokers)
}

func TestScanRequeuesWhenQueueFull(t *testing.T) {
	h := newHarness(t, false, func(o *Options) { o.UnregisterQueueCap = 1 })
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	mustRegister(t, h, reg("c1", "b2", "a2", 0, body(1, "t3", "t4")))
	later := h.clock.Mono().Add(time.Hour)
	require.Equal(t, 2, h.ScanExpired(later))
	require.Equal(t, uint64(1), h.Stats().UnregisterDrops)
	h.WaitIdle()
	require.Equal(t, 1, h.Stats().LiveBrokers)
	require.Equal(t, 1, h.ScanExpired(later), "the dropped one is retried")
	h.WaitIdle()
	require.Equal(t, 0, h.Stats().LiveBrokers)
}

func TestExpiryFindsBrokerByAddress(t *testing.T) {
	h := newHarness(t, false)
	short := func(r wire.RegisterRequest) wire.RegisterRequest { r.HeartbeatTimeoutMillis = 1000; return r }
	mustRegister(t, h, short(reg("c1", "b2", "a1", 1, body(1, "t3", "t4"))))
	mustRegister(t, h, short(reg("c1", "b1", "a1", 0, body(1, "t1", "t2"))))
	// a2 takes id 0 of b1 over: a1's live entry now names a group that no
	// longer holds it; the scan finds a1 in b2 by address instead.
	mustRegister(t, h, reg("c1", "b1", "a2", 0, body(1, "t1", "t2")))
	require.Equal(t, 1, h.ScanExpired(h.clock.Mono().Add(2*time.Second)))
	h.WaitIdle()
	require.Equal(t, 1, h.Stats().LiveBrokers)
	require.Empty(t, h.BrokerMemberGroup("c1", "b2").BrokerAddrs)
	require.Nil(t, h.Lookup("t3"))
	require.Equal(t, map[int64]string{0: "a2"}, h.BrokerMemberGroup("c1", "b1").BrokerAddrs)
}

func TestExpiryOfAddressInNoGroupDropsLiveEntry(t *testing.T) {
	h := newHarness(t, false)
	r := reg("c1", "b1", "a1", 0, body(1, "t1", "t2"))
	r.HeartbeatTimeoutMillis = 1000
	mustRegister(t, h, r)
	mustRegister(t, h, reg("c1", "b1", "a2", 0, body(1, "t1", "t2")))
	require.Equal(t, 1, h.ScanExpired(h.clock.Mono().Add(2*time.Second)))
	h.WaitIdle()
	require.Equal(t, 1, h.Stats().LiveBrokers, "Java would keep a1 live forever")
	require.Equal(t, map[int64]string{0: "a2"}, h.BrokerMemberGroup("c1", "b1").BrokerAddrs)
	require.NotNil(t, h.Lookup("t1"))
}

func TestStartRunsScanner(t *testing.T) {
	h := newHarness(t, false, func(o *Options) { o.ScanInterval = time.Millisecond })
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	h.clock.Advance(time.Hour)
	h.Start()
	poll.Until(t, "expired broker removed by the scanner", 5*time.Second, time.Millisecond, poll.True(func() bool { return h.Lookup("t1") == nil }))
	h.Stop()
}

// A broker-supplied heartbeatTimeoutMillis near the int64 range must not
// overflow (millis→nanos, or last+timeout) into an instant expiry; it is
// capped at MaxBrokerTimeout.
func TestHeartbeatTimeoutMillisOverflow(t *testing.T) {
	for _, ms := range []int64{10_000_000_000_000, 9_000_000_000_000, math.MaxInt64} {
		t.Run(fmt.Sprint(ms), func(t *testing.T) {
			h := newHarness(t, false)
			r := reg("c1", "b1", "a1", 0, body(1, "t1", "t2"))
			r.HeartbeatTimeoutMillis = ms
			mustRegister(t, h, r)
			start := h.clock.Mono()
			require.Equal(t, 0, h.ScanExpired(start.Add(time.Second)), "not expired at once")
			require.Equal(t, 0, h.ScanExpired(start.Add(MaxBrokerTimeout)))
			require.Equal(t, 1, h.ScanExpired(start.Add(MaxBrokerTimeout+time.Millisecond)), "capped")
		})
	}
}
