package route

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// unstamped is body without a DataVersion timestamp, as the decoders
// report one without dataVersion.
func unstamped(b *wire.RegisterBody) *wire.RegisterBody {
	b.DataVersion, b.DataVersionUnstamped = wire.DataVersion{Counter: 3}, true
	return b
}

func TestRegisterUnstampedDataVersionIsAlwaysNew(t *testing.T) {
	h := newHarness(t, false)
	req := withDigest(reg("c1", "b1", "a0", 0, unstamped(body(0, "t1", "t2"))), digestA)
	mustRegister(t, h, req)
	k := addrKey{"c1", "a0"}
	stamp := h.clock.Now().UnixMilli()
	require.Equal(t, wire.DataVersion{Counter: 3, Timestamp: stamp}, h.live.m[k].dv, "stamped with the wall clock")
	require.Equal(t, wire.BodyDigest{}, h.live.m[k].memo.digest, "no digest to answer it unchanged by")

	req.Body = nil
	_, ok := h.RegisterIfUnchanged(req)
	require.False(t, ok)

	h.clock.Advance(time.Second)
	changed := unstamped(body(0, "t1", "t2"))
	tc := changed.TopicConfigs["t1"]
	tc.Perm, tc.WriteQueueNums = wire.PermRead, 2
	changed.TopicConfigs["t1"] = tc
	req.Body = changed
	mustRegister(t, h, req)
	require.Equal(t, wire.QueueData{BrokerName: "b1", ReadQueueNums: 8, WriteQueueNums: 2, Perm: wire.PermRead},
		queueOf(t, h, "t1", "b1"), "a new version: every topic is put")
	require.Equal(t, stamp+1000, h.live.m[k].dv.Timestamp)

	dv := h.live.m[k].dv
	c, _ := h.QueryDataVersion("c1", "a0", &dv)
	require.False(t, c, "the stamped version itself")
	c, _ = h.QueryDataVersion("c1", "a0", nil)
	require.True(t, c)
}

func TestRegisterStampedAfterUnstampedTakesTheDigest(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, withDigest(reg("c1", "b1", "a0", 0, unstamped(body(0, "t1", "t2"))), digestA))
	req := withDigest(reg("c1", "b1", "a0", 0, body(1, "t1", "t2")), digestA)
	mustRegister(t, h, req)
	req.Body = nil
	_, ok := h.RegisterIfUnchanged(req)
	require.True(t, ok, "a body with a timestamp is answered from its digest again")
}

// TestUnstampedAcrossWallSteps: the stamp of a version without timestamp
// follows the wall clock, steps included, and nothing else does: every
// such registration is a new version even when the wall clock comes back
// to an earlier stamp, and the broker expires on the monotonic clock.
func TestUnstampedAcrossWallSteps(t *testing.T) {
	h := newHarness(t, true)
	k := addrKey{"c1", "a0"}
	register := func(perm int32) {
		b := unstamped(body(0, "t1", "t2"))
		tc := b.TopicConfigs["t1"]
		tc.Perm = perm
		b.TopicConfigs["t1"] = tc
		mustRegister(t, h, reg("c1", "b1", "a0", 0, b))
		require.Equal(t, perm, queueOf(t, h, "t1", "b1").Perm, "a new version: every topic is put")
		require.Equal(t, h.clock.Now().UnixMilli(), h.live.m[k].dv.Timestamp)
	}
	register(wire.PermRead | wire.PermWrite)
	first := h.live.m[k].dv.Timestamp
	h.clock.Advance(time.Second)
	h.clock.StepWall(-10 * time.Minute)
	register(wire.PermRead)
	h.clock.StepWall(10*time.Minute - time.Second) // the wall clock reads the first stamp again
	require.Equal(t, first, h.clock.Now().UnixMilli())
	register(wire.PermWrite)
	require.Zero(t, h.scanNow())
	h.clock.Advance(DefaultBrokerTimeout)
	require.Zero(t, h.scanNow(), "last registration + timeout == now: not expired yet")
	h.clock.Advance(time.Millisecond)
	require.Equal(t, 1, h.scanNow())
}

// nullVariant makes b, as the decoders would report it, for variant: 0 a
// body without timestamp, 1 a null DataVersion, 2 a null topic table, 3 a
// null wrapper; any other variant leaves b as it is.
func nullVariant(b *wire.RegisterBody, variant int) {
	switch variant {
	case 0:
		b.DataVersionUnstamped = true
	case 1:
		b.DataVersion, b.DataVersionUnstamped, b.DataVersionNull = wire.DataVersion{}, true, true
	case 2, 3:
		clear(b.TopicConfigs)
		b.Keys, b.MappingInfos, b.TopicTableNull = nil, nil, true
		if variant == 3 {
			b.DataVersion, b.DataVersionUnstamped, b.WrapperNull = wire.DataVersion{}, true, true
		}
	}
}

// TestUnstampedSameMappingPublishesNothing: a body without timestamp is a
// new version every time and puts its static-topic mappings again; the
// same mapping content changes no route, so no snapshot is rebuilt.
func TestUnstampedSameMappingPublishesNothing(t *testing.T) {
	h := newHarness(t, false)
	withMapping := func(dirty bool) *wire.RegisterBody {
		b := unstamped(body(0, "t1", "t2"))
		b.MappingInfos = map[string]*wire.TopicQueueMappingInfo{"t1": {Topic: "t1", Bname: "b1", TotalQueues: 2,
			Dirty: dirty, CurrIDMap: map[int32]int32{0: 0, 1: 1}}}
		return b
	}
	req := reg("c1", "b1", "a0", 0, withMapping(false))
	mustRegister(t, h, req)
	snap, pubs := h.Lookup("t1"), h.Stats().Publications
	for range 3 {
		req.Body = withMapping(false)
		mustRegister(t, h, req)
	}
	require.Same(t, snap, h.Lookup("t1"), "the same mapping: the route is the same")
	require.Equal(t, pubs, h.Stats().Publications)

	req.Body = withMapping(true)
	mustRegister(t, h, req)
	require.True(t, h.Lookup("t1").Route.TopicQueueMappingByBroker["b1"].Dirty, "another mapping is put")
	req.Body = withMapping(true)
	req.Body.MappingInfos["t1"].CurrIDMap = map[int32]int32{}
	mustRegister(t, h, req)
	require.NotNil(t, h.Lookup("t1").Route.TopicQueueMappingByBroker["b1"].CurrIDMap)
	require.Empty(t, h.Lookup("t1").Route.TopicQueueMappingByBroker["b1"].CurrIDMap)
	req.Body = withMapping(true)
	req.Body.MappingInfos["t1"].CurrIDMap = nil
	mustRegister(t, h, req)
	require.Nil(t, h.Lookup("t1").Route.TopicQueueMappingByBroker["b1"].CurrIDMap, "nil and empty differ (null, {})")
	require.Equal(t, 8, reflect.TypeOf(wire.TopicQueueMappingInfo{}).NumField(), "sameMapping compares every field")
}
