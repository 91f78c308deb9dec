package route

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// routeText stands in for a processor's encoding of a route: equal routes
// give equal bytes, and the topic name is not in them.
func routeText(s *TopicSnapshot, slot BodySlot) []byte {
	r := s.Route
	if slot >= BodyActingDefault && s.ActingMaster != nil {
		r = s.ActingMaster
	}
	return fmt.Appendf(nil, "%d %v", slot%2, *r)
}

// serve answers a lookup of s in slot as the route processor does: the
// slot's body, else an equal route's, else a new encoding offered to c.
func serve(c *BodyCache, s *TopicSnapshot, slot BodySlot) []byte {
	if b := c.Get(s, slot); b != nil {
		return b
	}
	if b := c.Shared(s, slot); b != nil {
		return b
	}
	b := routeText(s, slot)
	c.Put(s, slot, b)
	return b
}

// checkBody serves s in slot and checks that the body is the encoding of
// s's own route: a body of another state would show a mixed route.
func checkBody(c *BodyCache, topic string, s *TopicSnapshot, slot BodySlot) error {
	got, want := serve(c, s, slot), routeText(s, slot)
	if string(got) != string(want) {
		return fmt.Errorf("%s slot %d: body %q of route %q", topic, slot, got, want)
	}
	return nil
}

// publishedSnapshots returns every distinct snapshot published, with the
// number of topics publishing it. Caller must not run mutations meanwhile.
func publishedSnapshots(m *Manager) map[*TopicSnapshot]int {
	out := map[*TopicSnapshot]int{}
	if t := m.pub.table.Load(); t != nil {
		for i := range t.slots {
			if e := t.slots[i].Load(); e != nil && e != tombstone {
				if s := e.snap.Load(); s != nil {
					out[s]++
				}
			}
		}
	}
	return out
}

// recountBodies sums the distinct bodies that the published snapshots'
// slots hold: what c.Used must be.
func recountBodies(m *Manager, c *BodyCache) int64 {
	seen := map[string]struct{}{}
	var n int64
	for s := range publishedSnapshots(m) {
		for slot := range BodySlots {
			if b := c.Get(s, slot); b != nil {
				if _, dup := seen[string(b)]; !dup {
					seen[string(b)] = struct{}{}
					n += int64(len(b))
				}
			}
		}
	}
	return n
}

// checkInterns verifies the intern table against the published entries:
// each interned snapshot is counted once per topic publishing it, is the
// one of its key, and no unpublished snapshot stays interned.
func checkInterns(t *testing.T, m *Manager, msg string) {
	t.Helper()
	pubs := publishedSnapshots(m)
	chained := map[*TopicSnapshot]uint64{}
	for h, s := range m.interns {
		require.NotNil(t, s, "%s: an empty chain is kept", msg)
		for ; s != nil; s = s.intern.next {
			chained[s] = h
		}
	}
	for s, n := range pubs {
		if s.intern.on {
			require.Equal(t, int32(n), s.intern.refs, "%s: refs of an interned snapshot", msg)
			h, ok := chained[s]
			require.True(t, ok, "%s: an interned snapshot is in the table", msg)
			require.Equal(t, internHash(&s.intern.groups, s.Route.QueueDatas, s.intern.sync), h, "%s: under its hash", msg)
		}
	}
	for s := range chained {
		if _, ok := pubs[s]; !ok || !s.intern.on {
			t.Fatalf("%s: interned snapshot %v published by no topic", msg, s.Route.QueueDatas)
		}
	}
}

// interned returns the interned snapshots.
func interned(m *Manager) []*TopicSnapshot {
	var out []*TopicSnapshot
	for _, s := range m.interns {
		for ; s != nil; s = s.intern.next {
			out = append(out, s)
		}
	}
	return out
}

func TestEqualRoutesShareOneSnapshot(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2", "t3")))
	mustRegister(t, h, reg("c1", "b2", "a2", 0, body(1, "t1", "t2")))
	s1, s2, s3 := h.Lookup("t1"), h.Lookup("t2"), h.Lookup("t3")
	require.Same(t, s1, s2, "same queue data on the same groups: one snapshot")
	require.NotSame(t, s1, s3, "another group set: another snapshot")
	require.Len(t, interned(h.Manager), 2)
	require.Same(t, &h.pub.get("t1").queues[0], &s1.Route.QueueDatas[0], "the topic shares the snapshot's queue slice")
	require.Same(t, &h.pub.get("t2").queues[0], &s1.Route.QueueDatas[0])

	c := NewBodyCache(0)
	body1 := serve(c, s1, BodyDefault)
	require.Same(t, &body1[0], &c.Get(h.Lookup("t2"), BodyDefault)[0],
		"t2's first lookup finds the body t1's encoded, in its own slot")
	require.Equal(t, int64(len(body1)), c.Used())
	checkInterns(t, h.Manager, "after registration")
}

func TestChangeMovesOneTopicOffSharedSnapshot(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2", "t3")))
	shared := h.Lookup("t1")
	c := NewBodyCache(0)
	b := serve(c, shared, BodyDefault)
	pubs := h.Stats().Publications

	h.RegisterTopic("t2", []wire.QueueData{{BrokerName: "b1", ReadQueueNums: 8, WriteQueueNums: 3, Perm: 6}})
	require.Equal(t, pubs+1, h.Stats().Publications, "only t2 is republished")
	moved := h.Lookup("t2")
	require.NotSame(t, shared, moved)
	require.Equal(t, int32(3), moved.Route.QueueDatas[0].WriteQueueNums)
	require.Same(t, shared, h.Lookup("t1"), "the others keep the shared snapshot")
	require.Same(t, shared, h.Lookup("t3"))
	require.Equal(t, int32(8), shared.Route.QueueDatas[0].WriteQueueNums, "which is unchanged")
	require.Same(t, &b[0], &c.Get(shared, BodyDefault)[0], "and keeps its body")
	require.Equal(t, int32(2), shared.intern.refs)
	checkInterns(t, h.Manager, "after the change")

	h.RegisterTopic("t2", []wire.QueueData{{BrokerName: "b1", ReadQueueNums: 8, WriteQueueNums: 8, Perm: 6}})
	require.Same(t, shared, h.Lookup("t2"), "changed back, t2 rejoins the shared snapshot")
	require.Nil(t, c.Get(moved, BodyDefault))
	require.Len(t, interned(h.Manager), 1, "the snapshot t2 left is dropped")
	require.Equal(t, int64(len(b)), c.Used())
	checkInterns(t, h.Manager, "after the change back")
}

func TestSyncMemberAndMappedTopicsDoNotShare(t *testing.T) {
	h := newHarness(t, false)
	sync := syncBrokerMemberPrefix + "b1"
	bd := body(1, "t1", "t2", sync)
	bd.MappingInfos = map[string]*wire.TopicQueueMappingInfo{"t2": {Topic: "t2", Bname: "b1", TotalQueues: 8}}
	r := reg("c1", "b1", "a1", 1, bd)
	r.EnableActingMaster = boolp(true)
	mustRegister(t, h, r) // a slave: no master, so the acting-master view applies
	h.WipeWritePerm("b1")
	s1, s2, s3 := h.Lookup("t1"), h.Lookup("t2"), h.Lookup(sync)
	require.NotNil(t, s1.ActingMaster)
	require.Nil(t, s3.ActingMaster, "no acting-master view for the sync member topic")
	require.NotSame(t, s1, s3)
	require.NotSame(t, s1, s2, "a mapped topic keeps its own snapshot")
	require.NotNil(t, s2.Route.TopicQueueMappingByBroker)
	require.False(t, s2.intern.on)
	checkInterns(t, h.Manager, "")
}

// TestBodyCacheExactAcrossSharing applies random mutations (new and
// changed routes, perm changes, broker addresses and filter servers,
// deletions, unregistrations) and serves random lookups between them;
// after each mutation BodyCache.Used must equal a recount of the distinct
// bodies the published snapshots hold, and the intern table must match
// the published entries. Replay with RMQ_SEED.
func TestBodyCacheExactAcrossSharing(t *testing.T) {
	rng := rand.New(rand.NewPCG(attackSeed(t), 3))
	h := newHarness(t, false)
	h.Manager.log.SetLevel(5)
	c := NewBodyCache(0)
	const brokers, topics = 4, 24
	name := func(i int) string { return "t" + strconv.Itoa(i) }
	maxShared := 0
	for op := range 2000 {
		b := rng.IntN(brokers)
		bn, addr := "b"+strconv.Itoa(b), "a"+strconv.Itoa(b)
		desc := randomMutation(h, rng, b, bn, addr, name, topics)
		h.WaitIdle()
		for range rng.IntN(8) {
			if s := h.Lookup(name(rng.IntN(topics))); s != nil {
				require.NoError(t, checkBody(c, "", s, BodySlot(rng.IntN(int(BodySlots)))))
			}
		}
		msg := fmt.Sprintf("op %d (%s)", op, desc)
		require.Equal(t, recountBodies(h.Manager, c), c.Used(), msg)
		checkInterns(t, h.Manager, msg)
		for _, s := range interned(h.Manager) {
			maxShared = max(maxShared, int(s.intern.refs))
		}
	}
	t.Logf("%d topics on %d distinct snapshots, %d interned, %d body bytes; at most %d topics on one snapshot",
		h.Stats().Topics, len(publishedSnapshots(h.Manager)), len(interned(h.Manager)), c.Used(), maxShared)
	require.Greater(t, maxShared, 2, "the run shared snapshots")
	for i := range topics {
		h.DeleteTopic(name(i), "")
	}
	require.Empty(t, h.interns, "no topic left: nothing interned")
	require.Zero(t, c.Used(), "and no body counted")
}

// randomMutation applies one random change involving broker b.
func randomMutation(h *harness, rng *rand.Rand, b int, bn, addr string, name func(int) string, topics int) string {
	switch rng.IntN(8) {
	case 0, 1:
		var ts []string
		for i := range topics {
			if rng.IntN(2) == 0 {
				ts = append(ts, name(i))
			}
		}
		bd := body(rng.Int64N(3), ts...)
		wq := int32(1 + rng.IntN(2)) // mostly one value: topics share routes
		for _, k := range bd.Keys {  // body order, not a map's: the seed replays the run
			tc := bd.TopicConfigs[k]
			tc.WriteQueueNums = wq
			if rng.IntN(8) == 0 {
				tc.WriteQueueNums = 3
			}
			bd.TopicConfigs[k] = tc
		}
		r := reg("c1", bn, addr, 0, bd)
		r.EnableActingMaster = boolp(rng.IntN(2) == 0)
		_, _ = h.RegisterBroker(r)
		return "register " + bn
	case 2:
		_, _ = h.RegisterBroker(reg("c1", bn, addr+"-s", 1, body(1)))
		return "register a slave of " + bn
	case 3:
		h.RegisterTopic(name(rng.IntN(topics)), []wire.QueueData{{BrokerName: bn, ReadQueueNums: 1,
			WriteQueueNums: int32(1 + rng.IntN(2)), Perm: 6}})
		return "register topic on " + bn
	case 4:
		h.WipeWritePerm(bn)
		return "wipe " + bn
	case 5:
		h.DeleteTopic(name(rng.IntN(topics)), "")
		return "delete topic"
	case 6:
		r := reg("c1", bn, addr, 0, body(0))
		r.Body.FilterServerList = []string{"f" + strconv.Itoa(rng.IntN(3))}
		_, _ = h.RegisterBroker(r)
		return "filter servers of " + bn
	default:
		id := int64(rng.IntN(2))
		a := addr
		if id == 1 {
			a += "-s"
		}
		h.Unregister(wire.UnregisterRequest{ClusterName: "c1", BrokerAddr: a, BrokerName: bn, BrokerID: id})
		return fmt.Sprintf("unregister %s id %d", bn, id)
	}
}

// TestInternChainUnlinks: snapshots whose routes hash alike are chained;
// each leaves the chain wherever it is in it, and the last one leaves the
// table.
func TestInternChainUnlinks(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	s1 := h.Lookup("t1")
	hash := internHash(&s1.intern.groups, s1.Route.QueueDatas, s1.intern.sync)
	s2, s3 := &TopicSnapshot{Route: s1.Route}, &TopicSnapshot{Route: s1.Route}
	s2.intern = internState{groups: s1.intern.groups, next: s1, on: true}
	s3.intern = internState{groups: s1.intern.groups, next: s2, on: true}
	h.interns[hash] = s3
	chain := func() (out []*TopicSnapshot) {
		for s := h.interns[hash]; s != nil; s = s.intern.next {
			out = append(out, s)
		}
		return out
	}
	h.unintern(s2)
	require.Equal(t, []*TopicSnapshot{s3, s1}, chain(), "from the middle")
	h.unintern(s1)
	require.Equal(t, []*TopicSnapshot{s3}, chain(), "from the end")
	h.unintern(s3)
	require.NotContains(t, h.interns, hash, "the last one leaves the table")
	require.False(t, s1.intern.on || s2.intern.on || s3.intern.on)
}
