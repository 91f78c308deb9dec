package route

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// LiveBrokers lists the live brokers in order with the time since their
// last heartbeat on the monotonic clock (a wall-clock step changes
// nothing) and their topic counts, cut to the limit asked.
func TestLiveBrokersAgeAndOrder(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c2", "b3", "a3", 0, body(1, "t1", "t4")))
	mustRegister(t, h, reg("c1", "b2", "a2", 1, body(1, "t1", "t2")))
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2", "t3")))
	h.clock.Advance(12 * time.Second)
	h.Heartbeat("c1", "a2")
	h.clock.Advance(3 * time.Second)
	h.clock.StepWall(-time.Hour)

	rows, total := h.LiveBrokers(10)
	require.Equal(t, 3, total)
	require.Equal(t, []LiveBroker{
		{Cluster: "c1", BrokerName: "b1", Addr: "a1", BrokerID: 0, Since: 15 * time.Second, Topics: 3},
		{Cluster: "c1", BrokerName: "b2", Addr: "a2", BrokerID: 1, Since: 3 * time.Second, Topics: 2},
		{Cluster: "c2", BrokerName: "b3", Addr: "a3", BrokerID: 0, Since: 15 * time.Second, Topics: 2},
	}, rows)

	rows, total = h.LiveBrokers(1)
	require.Equal(t, 3, total)
	require.Len(t, rows, 1)
	require.Equal(t, "b1", rows[0].BrokerName)
	rows, total = h.LiveBrokers(-1)
	require.Empty(t, rows)
	require.Equal(t, 3, total)
}

// BenchmarkLiveBrokers10k: the status page's read of 10,000 live brokers
// (200 shown); rows is the part under the liveness lock.
func BenchmarkLiveBrokers10k(b *testing.B) {
	h := newHarness(b, false)
	for i := range 10_000 {
		name := fmt.Sprintf("b%05d", i)
		mustRegister(b, h, reg("c1", name, name+":10911", 0, body(1, "t-"+name, "u-"+name)))
	}
	b.Run("rows", func(b *testing.B) {
		for b.Loop() {
			_ = h.live.rows(h.clock.Mono())
		}
	})
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			_, _ = h.LiveBrokers(200)
		}
	})
}
