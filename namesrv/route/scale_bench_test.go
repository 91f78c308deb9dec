package route

import (
	"fmt"
	"math/rand"
	"os"
	"testing"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// scaleBenchTopics is the number of new topics one registration carries in
// BenchmarkRegisterNewTopics, as a broker of the 1M-topic table
// (1,000 brokers x 2,000 topics, width 2) carries.
const scaleBenchTopics = 2000

// BenchmarkRegisterNewTopics registers a broker whose 2,000 topics are new
// into a table that already holds 10k, 100k or (with BENCH_SCALE=1m) 1M
// topics, and reports the cost per topic. Between iterations (not timed)
// the broker is unregistered, so the table keeps its size.
func BenchmarkRegisterNewTopics(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if os.Getenv("BENCH_SCALE") == "1m" {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("table=%dk", n/1000), func(b *testing.B) { benchNewTopics(b, n) })
	}
}

func benchNewTopics(b *testing.B, size int) {
	m := NewManager(Options{})
	fillTable(b, m, size)
	topics := topicNames("new-topic-", scaleBenchTopics)
	req := reg("c1", "bnew", "10.9.9.9:10911", 0, body(1, topics...))
	req.Body.TopicsDigest = wire.DigestTopics(req.Body.TopicConfigs)
	un := wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: req.BrokerAddr, BrokerName: req.BrokerName}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := m.RegisterBroker(req); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if m.Lookup(topics[0]) == nil || !m.Unregister(un) {
			b.Fatal("registration not published or unregistration refused")
		}
		m.WaitIdle()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*scaleBenchTopics), "ns/topic")
}

// fillTable registers size topics, 2,000 per broker, each topic on two
// brokers (width 2), like the 1M-topic table.
func fillTable(tb testing.TB, m *Manager, size int) { fillTableWith(tb, m, size, false) }

// fillTableWith is fillTable; with distinct set each topic of a broker
// gets its own WriteQueueNums, so that no two topics have equal routes.
func fillTableWith(tb testing.TB, m *Manager, size int, distinct bool) {
	per := scaleBenchTopics
	brokers := 2 * size / per
	for i := range brokers {
		first := (i / 2) * per
		names := make([]string, per)
		for j := range names {
			names[j] = fmt.Sprintf("topic-%d", first+j)
		}
		bd := body(1, names...)
		if distinct {
			bd = distinctBody(1, names...)
		}
		bd.TopicsDigest = wire.DigestTopics(bd.TopicConfigs)
		if _, err := m.RegisterBroker(reg("c1", fmt.Sprintf("b%d", i), fmt.Sprintf("10.0.%d.%d:10911", i/250, i%250), 0, bd)); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkLookupScale looks topics of fillTable's table up in a random
// order (each lookup misses the caches, as at 1M topics where a run looks
// each topic up less than once): 100k, and with BENCH_SCALE=1m 1M topics.
func BenchmarkLookupScale(b *testing.B) {
	sizes := []int{100_000}
	if os.Getenv("BENCH_SCALE") == "1m" {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("table=%dk", n/1000), func(b *testing.B) {
			m := NewManager(Options{})
			fillTable(b, m, n)
			names := make([]string, n)
			for i, j := range rand.Perm(n) {
				names[i] = fmt.Sprintf("topic-%d", j)
			}
			b.ResetTimer()
			for i := range b.N {
				if m.Lookup(names[i%n]) == nil {
					b.Fatal("topic not found")
				}
			}
		})
	}
}
