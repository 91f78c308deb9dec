package route

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// versioned registers broker i with every topic's WriteQueueNums and the
// group's zone both set to v, so a coherent snapshot always shows equal
// values for a broker.
func versioned(i int, v int32, topics []string) wire.RegisterRequest {
	b := body(int64(v), topics...)
	for k, tc := range b.TopicConfigs {
		tc.WriteQueueNums = v
		b.TopicConfigs[k] = tc
	}
	r := reg("c1", fmt.Sprintf("b%d", i), fmt.Sprintf("a%d", i), 0, b)
	r.ZoneName = strconv.Itoa(int(v))
	return r
}

// checkCoherent verifies one snapshot as Java's pickupTopicRouteData would
// build it under its lock: queues and broker datas match one to one, and
// each broker's queue and BrokerData come from the same registration.
func checkCoherent(topic string, s *TopicSnapshot) error {
	r := s.Route
	if len(r.QueueDatas) != len(r.BrokerDatas) {
		return fmt.Errorf("%s: %d queues, %d brokers", topic, len(r.QueueDatas), len(r.BrokerDatas))
	}
	for _, q := range r.QueueDatas {
		var bd *wire.BrokerData
		for i := range r.BrokerDatas {
			if r.BrokerDatas[i].BrokerName == q.BrokerName {
				bd = &r.BrokerDatas[i]
			}
		}
		if bd == nil {
			return fmt.Errorf("%s: queue of %s without broker data", topic, q.BrokerName)
		}
		if bd.ZoneName != strconv.Itoa(int(q.WriteQueueNums)) {
			return fmt.Errorf("%s: %s queue v%d, broker v%s", topic, q.BrokerName, q.WriteQueueNums, bd.ZoneName)
		}
		if len(bd.BrokerAddrs) != 1 || bd.BrokerAddrs[0] != "a"+q.BrokerName[1:] {
			return fmt.Errorf("%s: %s addrs %v", topic, q.BrokerName, bd.BrokerAddrs)
		}
	}
	return nil
}

func TestSnapshotsCoherentUnderConcurrency(t *testing.T) {
	h := newHarness(t, true)
	h.Manager.log.SetLevel(5)
	topics := topicNames("t", 20)
	const brokers, rounds = 4, 150
	var writers sync.WaitGroup
	var done atomic.Bool
	firstSeen := make(chan struct{}) // readers saw a snapshot: writers go on
	var seenOnce sync.Once
	for i := range brokers {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for v := int32(1); v <= rounds; v++ {
				_, err := h.RegisterBroker(versioned(i, v, topics))
				if v == 1 {
					waitFirstSeen(t, firstSeen)
				}
				if err == nil && v%10 == 0 {
					h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: fmt.Sprintf("a%d", i),
						BrokerName: fmt.Sprintf("b%d", i)})
				}
				if v%25 == 0 {
					h.WipeWritePerm(fmt.Sprintf("b%d", i))
				}
			}
		}()
	}
	errs := make(chan error, 4)
	var readers sync.WaitGroup
	var seen atomic.Int64
	cache := NewBodyCache(0) // readers fill the shared snapshots' body slots
	for r := range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for n := r; !done.Load(); n++ {
				tp := topics[n%len(topics)]
				if s := h.Lookup(tp); s != nil {
					seen.Add(1)
					seenOnce.Do(func() { close(firstSeen) })
					if err := checkCoherent(tp, s); err != nil {
						errs <- err
						return
					}
					if err := checkBody(cache, tp, s, BodySlot(n%int(BodySlots))); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	writers.Wait()
	done.Store(true)
	readers.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Positive(t, seen.Load())
	h.WaitIdle()
	for _, tp := range topics {
		if s := h.Lookup(tp); s != nil {
			require.NoError(t, checkCoherent(tp, s))
		}
	}
	require.Equal(t, recountBodies(h.Manager, cache), cache.Used(), "Used is the distinct bodies published snapshots hold")
}

// waitFirstSeen holds a writer until a reader has seen a snapshot, so that
// readers and writers overlap however the goroutines are scheduled.
func waitFirstSeen(t *testing.T, firstSeen <-chan struct{}) {
	select {
	case <-firstSeen:
	case <-time.After(30 * time.Second):
		t.Error("no reader saw a snapshot within 30 s")
	}
}
