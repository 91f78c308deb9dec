package route

import (
	"hash/maphash"
	"math/rand/v2"
	"strconv"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/splitmix"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

// collidingQueue returns a QueueData of the group whose one-queue route
// has the internHash of q's (with the same published BrokerData g): each
// step of internHash is a bijection of the running hash, so choosing the
// nums word gives the perm word that cancels the difference.
func collidingQueue(g *wire.BrokerData, q wire.QueueData, writeNums int32) wire.QueueData {
	h := uint64(1)
	h = splitmix.Mix64(h ^ uint64(uintptr(unsafe.Pointer(g))))
	h = splitmix.Mix64(h ^ maphash.String(internSeed, q.BrokerName))
	nums := func(q wire.QueueData) uint64 {
		return uint64(uint32(q.ReadQueueNums))<<32 | uint64(uint32(q.WriteQueueNums))
	}
	perm := func(q wire.QueueData) uint64 { return uint64(uint32(q.Perm))<<32 | uint64(uint32(q.TopicSysFlag)) }
	c := q
	c.WriteQueueNums = writeNums
	want := splitmix.Mix64(h^nums(q)) ^ perm(q) ^ splitmix.Mix64(h^nums(c))
	c.Perm, c.TopicSysFlag = int32(uint32(want>>32)), int32(uint32(want))
	return c
}

// TestInternHashCollision forces routes with one 64-bit intern hash:
// they must never share a snapshot, each topic must publish its own
// route, and snapshots must leave the chain wherever they are in it while
// topics come, go and come back.
func TestInternHashCollision(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "seed", "seed2")))
	g := h.brokers["b1"].published()
	a := wire.QueueData{BrokerName: "b1", ReadQueueNums: 8, WriteQueueNums: 8, Perm: 6}
	routes := []wire.QueueData{a}
	for w := int32(1); w <= 3; w++ {
		routes = append(routes, collidingQueue(g, a, w))
	}
	hash := func(q wire.QueueData) uint64 {
		var gs [keyQueues]*wire.BrokerData
		gs[0] = g
		return internHash(&gs, []wire.QueueData{q}, false)
	}
	for _, q := range routes[1:] {
		require.NotEqual(t, a, q)
		require.Equal(t, hash(a), hash(q), "constructed collision")
	}
	name := func(r, copy int) string { return "r" + strconv.Itoa(r) + "-" + strconv.Itoa(copy) }
	want := map[string]wire.QueueData{}
	put := func(topic string, q wire.QueueData) {
		t.Helper()
		h.RegisterTopic(topic, []wire.QueueData{q})
		want[topic] = q
	}
	check := func(msg string) {
		t.Helper()
		checkModel(t, h.Manager, nil, msg)
		byRoute := map[wire.QueueData]*TopicSnapshot{}
		for topic, q := range want {
			s := h.Lookup(topic)
			require.NotNil(t, s, "%s: %s", msg, topic)
			require.Equal(t, []wire.QueueData{q}, s.Route.QueueDatas, "%s: %s", msg, topic)
			if byRoute[q] == nil {
				byRoute[q] = s
			}
			require.Same(t, byRoute[q], s, "%s: %s shares its route's snapshot", msg, topic)
		}
		byRoute[a] = h.Lookup("seed") // the seed topics' route is a
		require.Len(t, interned(h.Manager), len(byRoute), "%s: one snapshot per route", msg)
	}
	for c := range 2 {
		for r, q := range routes {
			put(name(r, c), q)
			check("register " + name(r, c))
		}
	}
	chain := 0
	for s := h.interns[hash(a)]; s != nil; s = s.intern.next {
		chain++
	}
	require.Equal(t, len(routes), chain, "one chain holds the colliding routes")
	for _, r := range []int{2, 0, 3, 1} { // leave from the middle, the end, the head
		for c := range 2 {
			h.DeleteTopic(name(r, c), "")
			delete(want, name(r, c))
			check("delete " + name(r, c))
		}
		put(name(r, 0), routes[(r+1)%len(routes)])
		check("move " + name(r, 0))
	}
	for topic := range want {
		h.DeleteTopic(topic, "")
		delete(want, topic)
		check("delete " + topic)
	}
	require.Same(t, h.Lookup("seed"), h.interns[hash(a)], "the seed topics' snapshot is left")
	require.Nil(t, h.interns[hash(a)].intern.next)
	h.DeleteTopic("seed", "")
	h.DeleteTopic("seed2", "")
	require.NotContains(t, h.interns, hash(a), "the chain is gone")
}

// TestPublishedTagCollision: two names whose hashes share the 32-bit
// tag a published row carries, in one probe run of a small table: each
// lookup finds its own row, a withdrawn one is not found through the other.
func TestPublishedTagCollision(t *testing.T) {
	p := &pubIndex{seed: maphash.MakeSeed()}
	x, y := tagTwins(p)
	t.Logf("%q and %q share the tag %#x", x, y, uint32(p.hash(x)>>32))
	tbl := newPubSlots(4)
	p.table.Store(tbl)
	ex, ey := &topicEntry{name: x, tag: uint32(p.hash(x) >> 32)}, &topicEntry{name: y, tag: uint32(p.hash(y) >> 32)}
	require.Equal(t, ex.tag, ey.tag)
	p.insert(tbl, ex, true)
	p.insert(tbl, ey, true)
	require.Same(t, ex, p.get(x))
	require.Same(t, ey, p.get(y))
	require.Nil(t, p.get(x+"!"))
	require.True(t, p.withdraw(ex))
	require.Nil(t, p.get(x))
	require.Same(t, ey, p.get(y))
	ex2 := &topicEntry{name: x, tag: ex.tag}
	p.insert(tbl, ex2, true)
	require.Same(t, ex2, p.get(x))
	require.Same(t, ey, p.get(y))
	require.Equal(t, 2, p.live)
}

// tagTwins finds two names with one tag under p's seed (a birthday search
// over 2^18 names finds about eight pairs).
func tagTwins(p *pubIndex) (string, string) {
	seen := make(map[uint32]int, 1<<18)
	for i := 0; ; i++ {
		tag := uint32(p.hash("tag-"+strconv.Itoa(i)) >> 32)
		if j, ok := seen[tag]; ok {
			return "tag-" + strconv.Itoa(j), "tag-" + strconv.Itoa(i)
		}
		seen[tag] = i
	}
}

// TestAttackRouteChurnBounded: a registrant keeps moving every topic to a
// route of its own that no topic had before (a new WriteQueueNums each
// round, on changing groups), with lookups filling the body cache. The
// intern table, the body cache's maps, the published table, the topic
// sets and the shared BrokerData lists must stay bounded by what is
// published now, not grow with the routes ever seen.
func TestAttackRouteChurnBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(attackSeed(t), 31))
	h := newHarness(t, false)
	h.Manager.log.SetLevel(5)
	for b := range 4 {
		mustRegister(t, h, reg("c1", "b"+strconv.Itoa(b), "a"+strconv.Itoa(b), 0, body(1, "s0", "s1")))
	}
	c := NewBodyCache(0)
	const topics, rounds = 200, 300
	peak := 0
	for round := range rounds {
		for i := range topics {
			var qs []wire.QueueData
			for b := range 4 {
				if rng.IntN(2) == 0 || (b == 3 && len(qs) == 0) {
					qs = append(qs, wire.QueueData{BrokerName: "b" + strconv.Itoa(b), ReadQueueNums: 8,
						WriteQueueNums: int32(round + 2), Perm: 6})
				}
			}
			topic := "t" + strconv.Itoa(i)
			if rng.IntN(4) == 0 {
				h.DeleteTopic(topic, "")
			}
			h.RegisterTopic(topic, qs)
			if s := h.Lookup(topic); s != nil {
				serve(c, s, BodySlot(rng.IntN(int(BodySlots))))
			}
		}
		pubs := publishedSnapshots(h.Manager)
		peak = max(peak, len(interned(h.Manager)))
		require.LessOrEqual(t, len(interned(h.Manager)), len(pubs), "round %d: interned snapshots", round)
		require.LessOrEqual(t, len(pubs), topics+1, "round %d: published snapshots", round)
		c.mu.Lock()
		bodies, routes := len(c.bodies), len(c.routes)
		c.mu.Unlock()
		require.LessOrEqual(t, bodies, len(pubs)*int(BodySlots), "round %d: bodies held", round)
		require.LessOrEqual(t, routes, bodies, "round %d: bodies by route", round)
		require.Equal(t, recountBodies(h.Manager, c), c.Used(), "round %d: body bytes", round)
		require.Equal(t, pubMinSlots, len(h.pub.table.Load().slots), "round %d: published table", round)
		for name, s := range h.byBroker {
			require.LessOrEqual(t, len(s.slots), 1024, "round %d: topic set of %s (%d members)", round, name, s.live)
		}
		require.LessOrEqual(t, len(h.shared.m), shareCap)
	}
	checkModel(t, h.Manager, c, "after the churn")
	t.Logf("%d rounds of %d topics on new routes: at most %d interned, now %d body bytes", rounds, topics, peak, c.Used())
}
