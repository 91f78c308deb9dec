package route

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// attackSeed returns the seed of a randomized attack test, from env
// RMQ_SEED when set (replay), and logs it.
func attackSeed(t *testing.T) uint64 {
	t.Helper()
	seed := rand.Uint64()
	if s, err := strconv.ParseUint(os.Getenv("RMQ_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d (replay with RMQ_SEED=%d)", seed, seed)
	return seed
}

// regHistory is the sequence of states the coordinator published for one
// topic: a WriteQueueNums version, or 0 for "absent". started counts the
// states begun, done those whose mutation returned.
type regHistory struct {
	states        []int32 // writer only until the run ends
	started, done atomic.Int64
	present       bool // writer only
}

// observation is one Lookup: its value and the bounds of the states it may
// have seen ([lo, hi] indexes into states).
type observation struct {
	topic   int
	lo, hi  int64
	version int32
}

// TestLookupLinearizable races lock-free lookups with one writer that
// creates (growing the published table through several rehashes), updates,
// deletes and re-creates topics. Every lookup must return a state the
// writer published between the lookup's start and end, and one reader must
// never see a topic go back to an older state.
func TestLookupLinearizable(t *testing.T) { lookupLinearizable(t, 0) }

// TestSharedLookupLinearizable is TestLookupLinearizable with
// three queue versions only: topics keep moving on and off a few shared
// (interned) snapshots, which are created and retired as they go.
func TestSharedLookupLinearizable(t *testing.T) { lookupLinearizable(t, 3) }

// lookupLinearizable runs the linearizability attack; versions > 0 draws
// each state's version from 1..versions instead of a new one per state.
func lookupLinearizable(t *testing.T, versions int32) {
	rng := rand.New(rand.NewPCG(attackSeed(t), 7))
	h := newHarness(t, false)
	h.Manager.log.SetLevel(5)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1)))
	const topics, ops, readers = 3000, 12000, 2
	hist := make([]*regHistory, topics)
	for i := range hist {
		hist[i] = &regHistory{states: []int32{0}}
		hist[i].started.Store(1)
		hist[i].done.Store(1)
	}
	name := func(i int) string { return fmt.Sprintf("lin-%d", i) }
	var stop atomic.Bool
	var wg sync.WaitGroup
	obs := make([][]observation, readers)
	for r := range readers {
		wg.Add(1)
		go func(r int, rng *rand.Rand) {
			defer wg.Done()
			for !stop.Load() {
				i := rng.IntN(topics)
				o := observation{topic: i, lo: hist[i].done.Load() - 1}
				if s := h.Lookup(name(i)); s != nil {
					o.version = -1 // torn: matches no state
					if len(s.Route.QueueDatas) == 1 && len(s.Route.BrokerDatas) == 1 {
						o.version = s.Route.QueueDatas[0].WriteQueueNums
					}
				}
				o.hi = hist[i].started.Load() - 1
				obs[r] = append(obs[r], o)
			}
		}(r, rand.New(rand.NewPCG(rng.Uint64(), uint64(r))))
	}
	version := int32(0)
	for op := range ops {
		// the reachable topic range widens, so the table grows while read
		i := rng.IntN(min(topics, 64+op/3))
		hs := hist[i]
		version++
		next := version
		if versions > 0 {
			next = 1 + version%versions
		}
		if hs.present && rng.IntN(3) == 0 {
			next = 0
		}
		hs.started.Add(1)
		if next == 0 {
			h.DeleteTopic(name(i), "")
		} else {
			h.RegisterTopic(name(i), []wire.QueueData{{BrokerName: "b1", ReadQueueNums: 1, WriteQueueNums: next, Perm: 6}})
		}
		hs.states = append(hs.states, next)
		hs.present = next != 0
		hs.done.Add(1)
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("table slots %d, observations %d+%d, %d topics on %d interned snapshots", len(h.pub.table.Load().slots),
		len(obs[0]), len(obs[1]), h.Stats().Topics, len(interned(h.Manager)))
	for r := range obs {
		checkLinearizable(t, hist, obs[r])
	}
	checkInterns(t, h.Manager, "after the run")
}

// checkLinearizable matches each observation of one reader to the earliest
// state with its value, no earlier than the reader's last state of that
// topic and within the observation's bounds.
func checkLinearizable(t *testing.T, hist []*regHistory, obs []observation) {
	t.Helper()
	last := map[int]int64{}
	for n, o := range obs {
		from := max(o.lo, last[o.topic])
		idx := int64(-1)
		for j := from; j <= o.hi; j++ {
			if hist[o.topic].states[j] == o.version {
				idx = j
				break
			}
		}
		if idx < 0 {
			t.Fatalf("observation %d of topic %d: version %d not published in states [%d, %d] %v",
				n, o.topic, o.version, from, o.hi, hist[o.topic].states[max(0, from-2):o.hi+1])
		}
		last[o.topic] = idx
	}
}

// TestAttackTopicChurnBounded creates and deletes distinct topics in a
// loop: tombstones must not grow the published table (or make misses
// probe it all) beyond what the live topics need.
func TestAttackTopicChurnBounded(t *testing.T) {
	h := newHarness(t, false)
	h.Manager.log.SetLevel(5)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, topicNames("keep-", 300)...)))
	q := []wire.QueueData{{BrokerName: "b1", ReadQueueNums: 1, WriteQueueNums: 1, Perm: 6}}
	maxSlots := 0
	for i := range 50_000 {
		name := "churn-" + strconv.Itoa(i)
		h.RegisterTopic(name, q)
		if h.Lookup(name) == nil {
			t.Fatalf("topic %s not published", name)
		}
		h.DeleteTopic(name, "")
		maxSlots = max(maxSlots, len(h.pub.table.Load().slots))
	}
	probe := h.pub.table.Load()
	longest, run := 0, 0
	for i := range probe.slots {
		if probe.slots[i].Load() == nil {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	t.Logf("50000 topics churned over 300 live: at most %d slots, longest probe run %d, used %d", maxSlots, longest, h.pub.used)
	if maxSlots > pubMinSlots || h.Lookup("churn-1") != nil || h.Lookup("keep-1") == nil {
		t.Fatalf("table grew to %d slots for 300 live topics", maxSlots)
	}
}

// collidingNames returns 2^bits distinct names with one Java
// String.hashCode ("Aa" and "BB" hash alike), as an attacker would choose
// them against a Java-hash table.
func collidingNames(bits int) []string {
	out := make([]string, 1<<bits)
	for i := range out {
		b := make([]byte, 0, 2*bits)
		for j := range bits {
			if i>>j&1 == 0 {
				b = append(b, "Aa"...)
			} else {
				b = append(b, "BB"...)
			}
		}
		out[i] = string(b)
	}
	return out
}

// TestAttackJavaHashCollidingTopics registers topics whose names share one
// Java hash. Lookups index by a seeded hash, and the admin lists that
// follow Java's (predictable) bucket order sort rather than chain, so the
// colliding set costs about what a random one does. Figures are logged.
func TestAttackJavaHashCollidingTopics(t *testing.T) {
	const bits = 14
	for _, kind := range []string{"colliding", "random"} {
		names := collidingNames(bits)
		if kind == "random" {
			names = topicNames("random-topic-", len(names))
		}
		h := newHarness(t, false)
		h.Manager.log.SetLevel(5)
		start := time.Now()
		mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, names...)))
		registered := time.Since(start)
		start = time.Now()
		for _, n := range names {
			if h.Lookup(n) == nil {
				t.Fatalf("%s not routed", n)
			}
		}
		looked := time.Since(start)
		start = time.Now()
		all := h.AllTopics()
		byCluster := h.TopicsByCluster("c1")
		listed := time.Since(start)
		if len(all.TopicList) != len(names) || len(byCluster.TopicList) != len(names) {
			t.Fatalf("%s: listed %d and %d of %d", kind, len(all.TopicList), len(byCluster.TopicList), len(names))
		}
		t.Logf("%s %d topics: register %v, lookups %v, AllTopics+TopicsByCluster %v", kind, len(names), registered, looked, listed)
	}
}
