package route

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/monotime"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

// fakeChan is a broker connection that records Close.
type fakeChan struct {
	name   string
	closed atomic.Bool
	once   sync.Once
	dead   chan struct{} // closed by Close, as remoting.Conn's Done
}

func (c *fakeChan) Close() error {
	c.closed.Store(true)
	c.once.Do(func() {
		if c.dead != nil {
			close(c.dead)
		}
	})
	return nil
}

func (c *fakeChan) Done() <-chan struct{} { return c.dead }

func newChan(name string) *fakeChan { return &fakeChan{name: name, dead: make(chan struct{})} }

// fakeClock is a settable clock whose wall reading can be stepped apart
// from the time that passes (monotime.Fake).
type fakeClock struct{ *monotime.Fake }

func newFakeClock() *fakeClock { return &fakeClock{monotime.NewFake(time.Unix(1_700_000_000, 0))} }

// testLogger routes logs to t.Log.
func testLogger(t testing.TB) hclog.Logger { return testlog.New(t, "route") }

// harness is a Manager with a fake clock, live settings and recorded 905s.
type harness struct {
	*Manager
	clock    *fakeClock
	settings atomic.Pointer[Settings]
	mu       sync.Mutex
	notes    []wire.MinBrokerIDChange
}

func newHarness(t testing.TB, start bool, tweak ...func(*Options)) *harness {
	h := &harness{clock: newFakeClock()}
	h.settings.Store(&Settings{})
	opts := Options{
		Settings: func() Settings { return *h.settings.Load() },
		Logger:   testLogger(t),
		Clock:    h.clock,
		NotifyMinBrokerIDChange: func(n wire.MinBrokerIDChange) {
			h.mu.Lock()
			h.notes = append(h.notes, n)
			h.mu.Unlock()
		},
	}
	for _, f := range tweak {
		f(&opts)
	}
	h.Manager = NewManager(opts)
	if start {
		h.Start()
	}
	t.Cleanup(h.Stop)
	return h
}

func (h *harness) set(s Settings) { h.settings.Store(&s) }

func (h *harness) takeNotes() []wire.MinBrokerIDChange {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.notes
	h.notes = nil
	return n
}

func boolp(b bool) *bool { return &b }

// body builds a registration body with 8/8 queues, perm 6, per topic.
func body(counter int64, topics ...string) *wire.RegisterBody {
	b := &wire.RegisterBody{DataVersion: wire.DataVersion{Counter: counter, Timestamp: 1}, TopicConfigs: map[string]wire.TopicConfig{}}
	for _, tp := range topics {
		if _, dup := b.TopicConfigs[tp]; !dup {
			b.Keys = append(b.Keys, tp) // body order, as the decoders keep it
		}
		b.TopicConfigs[tp] = wire.TopicConfig{TopicName: tp, ReadQueueNums: 8, WriteQueueNums: 8, Perm: wire.PermRead | wire.PermWrite,
			Pos: int32(len(b.Keys) - 1)}
	}
	return b
}

func topicNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// reg is a 5.x broker registration (enableActingMaster=false).
func reg(cluster, name, addr string, id int64, b *wire.RegisterBody) wire.RegisterRequest {
	return wire.RegisterRequest{
		ClusterName: cluster, BrokerName: name, BrokerAddr: addr, BrokerID: id,
		HAServerAddr: addr + "-ha", EnableActingMaster: boolp(false), Body: b,
	}
}

func mustRegister(t testing.TB, h *harness, req wire.RegisterRequest) wire.RegisterResult {
	t.Helper()
	res, err := h.RegisterBroker(req)
	require.NoError(t, err)
	return res
}

// queueOf returns the QueueData of brokerName in the topic's route.
func queueOf(t testing.TB, h *harness, topic, brokerName string) wire.QueueData {
	t.Helper()
	s := h.Lookup(topic)
	require.NotNil(t, s, "topic %s", topic)
	for _, q := range s.Route.QueueDatas {
		if q.BrokerName == brokerName {
			return q
		}
	}
	t.Fatalf("no queue of %s in %s", brokerName, topic)
	return wire.QueueData{}
}

func brokerOf(t testing.TB, s *wire.TopicRouteData, brokerName string) wire.BrokerData {
	t.Helper()
	for _, b := range s.BrokerDatas {
		if b.BrokerName == brokerName {
			return b
		}
	}
	t.Fatalf("no broker data %s", brokerName)
	return wire.BrokerData{}
}
