package route

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// quietManager is a started Manager that logs nothing.
func quietManager(tb testing.TB, opts Options) *Manager {
	m := NewManager(opts)
	m.Start()
	tb.Cleanup(m.Stop)
	return m
}

// registerAll registers brokers b0..b(n-1) of cluster c1, each a master
// holding every topic.
func registerAll(tb testing.TB, m *Manager, brokers int, topics []string) {
	b := body(1, topics...)
	for i := range brokers {
		_, err := m.RegisterBroker(reg("c1", fmt.Sprintf("b%d", i), fmt.Sprintf("10.0.0.%d:10911", i), 0, b))
		require.NoError(tb, err)
	}
}

var lookupFixture struct {
	once   sync.Once
	m      *Manager
	topics []string
}

// BenchmarkLookup reads routes of 100,000 topics x 4 brokers in parallel.
func BenchmarkLookup(b *testing.B) {
	f := &lookupFixture
	f.once.Do(func() {
		f.m = NewManager(Options{})
		f.topics = topicNames("topic-", 100_000)
		registerAll(b, f.m, 4, f.topics)
	})
	var seq atomic.Uint64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(seq.Add(7919))
		for pb.Next() {
			i++
			if f.m.Lookup(f.topics[i%len(f.topics)]) == nil {
				b.Error("missing route")
			}
		}
	})
}

// Kinds of re-registration measured by benchRegister.
const (
	regUnchanged          = iota // same DataVersion, same topics
	regNewVersion                // new DataVersion, same topic configs
	regChanged                   // new DataVersion, every topic's queue count changed
	regUnchangedUnprinted        // regUnchanged without the decoder's print: RegisterBroker computes it
)

// benchRegister re-registers a master of 10,000 topics (4 masters hold
// every topic).
func benchRegister(b *testing.B, kind int) {
	m := quietManager(b, Options{})
	topics := topicNames("topic-", 10_000)
	registerAll(b, m, 4, topics)
	bodies := [2]*wire.RegisterBody{body(1, topics...), body(1, topics...)}
	for k, tc := range bodies[1].TopicConfigs {
		tc.WriteQueueNums = 16
		bodies[1].TopicConfigs[k] = tc
	}
	for _, bd := range bodies {
		if kind != regUnchangedUnprinted {
			bd.TopicsDigest = wire.DigestTopics(bd.TopicConfigs) // as body's decoders fill it
		}
	}
	req := reg("c1", "b0", "10.0.0.0:10911", 0, bodies[0])
	pubs := m.Stats().Publications
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		switch kind {
		case regChanged:
			req.Body = bodies[(i+1)%2]
			req.Body.DataVersion.Counter = int64(i + 2)
		case regNewVersion:
			req.Body.DataVersion.Counter = int64(i + 2)
		}
		if _, err := m.RegisterBroker(req); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if kind != regChanged && m.Stats().Publications != pubs {
		b.Fatalf("registrations without content change republished %d topics", m.Stats().Publications-pubs)
	}
}

func BenchmarkRegister10kTopicsChanged(b *testing.B)    { benchRegister(b, regChanged) }
func BenchmarkRegister10kTopicsUnchanged(b *testing.B)  { benchRegister(b, regUnchanged) }
func BenchmarkRegister10kTopicsNewVersion(b *testing.B) { benchRegister(b, regNewVersion) }
func BenchmarkRegister10kTopicsUnchangedUnprinted(b *testing.B) {
	benchRegister(b, regUnchangedUnprinted)
}

// BenchmarkScanExpired1000of10000 scans 10,000 live brokers of which 1,000
// have expired. The worker is not started, so the timed part is the scan
// alone (pop, close, enqueue); applying the unregistrations and
// re-registering between iterations is not timed.
func BenchmarkScanExpired1000of10000(b *testing.B) {
	clock := newFakeClock()
	m := NewManager(Options{Clock: clock})
	reqs := make([]wire.RegisterRequest, 10_000)
	for i := range reqs {
		reqs[i] = reg("c1", fmt.Sprintf("b%d", i), fmt.Sprintf("a%d", i), 0, nil)
		reqs[i].Channel = newChan("c")
		if i%10 == 0 {
			reqs[i].HeartbeatTimeoutMillis = 1000
		}
		_, _ = m.RegisterBroker(reqs[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if n := m.ScanExpired(clock.Mono().Add(2 * time.Second)); n != 1000 {
			b.Fatalf("expired %d", n)
		}
		b.StopTimer()
		m.WaitIdle()
		for i := 0; i < len(reqs); i += 10 {
			_, _ = m.RegisterBroker(reqs[i])
		}
		b.StartTimer()
	}
}

// TestMemoryPerTopic measures the heap held per topic route at 100,000
// topics x 4 brokers (target: at most 2 KB).
func TestMemoryPerTopic(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 100,000 topic routes")
	}
	const n = 100_000
	before := heapAlloc()
	topics := topicNames("topic-with-a-realistic-name-", n)
	m := NewManager(Options{})
	registerAll(t, m, 4, topics)
	after := heapAlloc()
	require.NotNil(t, m.Lookup(topics[n-1]))
	require.Len(t, m.Lookup(topics[0]).Route.BrokerDatas, 4)
	perTopic := float64(after-before) / n
	t.Logf("heap per topic route (4 brokers): %.0f bytes, total %.1f MiB", perTopic, float64(after-before)/(1<<20))
	require.LessOrEqual(t, perTopic, 2048.0)
	runtime.KeepAlive(m)
	runtime.KeepAlive(topics)
}

func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
