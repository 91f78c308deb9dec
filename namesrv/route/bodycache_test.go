package route

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

func TestBodyCacheSlots(t *testing.T) {
	h := twoClusters(t)
	c := NewBodyCache(0)
	s := h.Lookup("only1")
	require.Nil(t, c.Get(s, BodyDefault))
	c.Put(s, BodyDefault, []byte("std"))
	c.Put(s, BodyDefault, []byte("other"))
	c.Put(s, BodyActingStandard, []byte("x"))
	c.Put(s, BodySlots, []byte("ignored"))
	require.Equal(t, []byte("std"), c.Get(s, BodyDefault), "only an empty slot is filled")
	require.Equal(t, []byte("x"), c.Get(s, BodyActingStandard))
	require.Nil(t, c.Get(s, BodyStandard))
	require.Nil(t, c.Get(s, BodySlots))
	require.Equal(t, int64(4), c.Used())

	h.WipeWritePerm("b1")
	s2 := h.Lookup("only1")
	require.NotSame(t, s, s2)
	require.Nil(t, c.Get(s2, BodyDefault), "a new snapshot starts with empty slots")
	require.Nil(t, c.Get(s, BodyDefault), "the replaced snapshot's slots are closed")
	require.Zero(t, c.Used(), "and what they held is uncounted")
	c.Put(s, BodyDefault, []byte("late"))
	require.Nil(t, c.Get(s, BodyDefault), "a retired slot stays closed")
	require.Zero(t, c.Used())
}

func TestBodyCacheRetiresReplacedAndWithdrawnSnapshots(t *testing.T) {
	h := newHarness(t, false)
	c := NewBodyCache(0)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	c.Put(h.Lookup("t1"), BodyDefault, []byte("one"))
	c.Put(h.Lookup("t2"), BodyStandard, []byte("two"))
	require.Equal(t, int64(6), c.Used())
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	require.Equal(t, int64(6), c.Used(), "an unchanged registration republishes nothing")
	h.WipeWritePerm("b1")
	require.Zero(t, c.Used())
	c.Put(h.Lookup("t1"), BodyDefault, []byte("one"))
	h.DeleteTopic("t1", "")
	require.Equal(t, int64(3), c.Used(), "t2 still publishes the snapshot t1 shared")
	h.DeleteTopic("t2", "")
	require.Zero(t, c.Used(), "a withdrawn snapshot is retired too")
}

// distinctBody is body with WriteQueueNums 1, 2, ... for the topics in
// order, so that no two of them have equal routes (one snapshot each).
func distinctBody(counter int64, topics ...string) *wire.RegisterBody {
	b := body(counter, topics...)
	for i, tp := range topics {
		tc := b.TopicConfigs[tp]
		tc.WriteQueueNums = int32(i + 1)
		b.TopicConfigs[tp] = tc
	}
	return b
}

func TestBodyCacheBudget(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, distinctBody(1, "t1", "t2")))
	c := NewBodyCache(4)
	c.Put(h.Lookup("t1"), BodyDefault, []byte("four"))
	c.Put(h.Lookup("t2"), BodyDefault, []byte("x"))
	require.Nil(t, c.Get(h.Lookup("t2"), BodyDefault), "over budget nothing is kept")
	require.Equal(t, int64(4), c.Used())

	none := NewBodyCache(-1)
	none.Put(h.Lookup("t2"), BodyStandard, []byte("x"))
	require.Nil(t, none.Get(h.Lookup("t2"), BodyStandard), "a negative budget caches nothing")
	require.Zero(t, none.Used())
}

func TestBodyCacheHoldsEqualBodiesOnce(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, distinctBody(1, "t1", "t2", "t3")))
	c := NewBodyCache(8)
	c.Put(h.Lookup("t1"), BodyDefault, []byte("same"))
	c.Put(h.Lookup("t2"), BodyDefault, []byte("same"))
	c.Put(h.Lookup("t2"), BodyStandard, []byte("same"))
	require.Same(t, &c.Get(h.Lookup("t1"), BodyDefault)[0], &c.Get(h.Lookup("t2"), BodyStandard)[0])
	require.Equal(t, int64(4), c.Used(), "counted once")
	c.Put(h.Lookup("t3"), BodyDefault, []byte("other"))
	require.Nil(t, c.Get(h.Lookup("t3"), BodyDefault), "a new body must fit the budget")

	h.DeleteTopic("t1", "")
	require.Equal(t, int64(4), c.Used(), "still held by t2")
	h.DeleteTopic("t2", "")
	require.Zero(t, c.Used(), "uncounted with the last holder")
	c.Put(h.Lookup("t3"), BodyDefault, []byte("other"))
	require.Equal(t, int64(5), c.Used(), "the budget is free again")
}

// TestBodyCacheSharedByRoute: snapshots of equal routes that are not one
// interned snapshot (here a sync member topic, which has no acting-master
// view, next to an ordinary one) share their plain view's bodies.
func TestBodyCacheSharedByRoute(t *testing.T) {
	h := newHarness(t, false)
	t2 := syncBrokerMemberPrefix + "t2"
	b := body(1, "t1", t2, "t3")
	tc := b.TopicConfigs["t3"]
	tc.WriteQueueNums = 2
	b.TopicConfigs["t3"] = tc
	mustRegister(t, h, reg("c1", "b1", "a1", 0, b))
	require.NotSame(t, h.Lookup("t1"), h.Lookup(t2))
	c := NewBodyCache(0)
	require.Nil(t, c.Shared(h.Lookup(t2), BodyDefault), "nothing held yet")
	c.Put(h.Lookup("t1"), BodyDefault, []byte("body-of-t1"))
	got := c.Shared(h.Lookup(t2), BodyDefault)
	require.Equal(t, []byte("body-of-t1"), got, "same groups, same queues: the held body, not encoded")
	require.Same(t, &got[0], &c.Get(h.Lookup(t2), BodyDefault)[0], "and the slot holds it")
	require.Nil(t, c.Shared(h.Lookup(t2), BodyStandard), "another flavour is another body")
	require.Nil(t, c.Shared(h.Lookup("t3"), BodyDefault), "other queues are another body")
	require.Equal(t, int64(10), c.Used())

	h.DeleteTopic("t1", "")
	h.DeleteTopic(t2, "")
	require.Zero(t, c.Used())
	require.Empty(t, c.routes, "released with the last holder")
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(2, "t1", t2)))
	require.Nil(t, c.Shared(h.Lookup(t2), BodyDefault))
}
