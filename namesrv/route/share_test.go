package route

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

func TestNewDataVersionSameContentSkipsPuts(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	before, pubs, edits := h.Lookup("t1"), h.Stats().Publications, h.edits
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(2, "t1", "t2")))
	require.Same(t, before, h.Lookup("t1"), "same content under a new DataVersion must not republish")
	require.Equal(t, pubs, h.Stats().Publications)
	require.Equal(t, edits, h.edits)

	require.Equal(t, 2, h.WipeWritePerm("b1"))
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(3, "t1", "t2")))
	require.Equal(t, wire.PermRead|wire.PermWrite, queueOf(t, h, "t1", "b1").Perm,
		"an edit since the last application forces every put")

	changed := body(4, "t1", "t2")
	tc := changed.TopicConfigs["t2"]
	tc.WriteQueueNums = 3
	changed.TopicConfigs["t2"] = tc
	mustRegister(t, h, reg("c1", "b1", "a1", 0, changed))
	require.Equal(t, int32(3), queueOf(t, h, "t2", "b1").WriteQueueNums, "changed content is applied")
}

func TestSkipSurvivesNoEditButNotDeletion(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	mustRegister(t, h, reg("c1", "b2", "a2", 0, body(1, "t1", "t3")))
	h.DeleteTopic("t2", "")
	require.Nil(t, h.Lookup("t2"))
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(2, "t1", "t2")))
	require.NotNil(t, h.Lookup("t2"), "a deletion since the last application forces every put")
	require.Len(t, h.Lookup("t1").Route.QueueDatas, 2)
}

func TestSkipUsesDecoderPrint(t *testing.T) {
	h := newHarness(t, false)
	b1 := body(1, "t1", "t2")
	b1.TopicsDigest = wire.DigestTopics(b1.TopicConfigs)
	require.Equal(t, 2, b1.TopicsDigest.Count())
	mustRegister(t, h, reg("c1", "b1", "a1", 0, b1))
	pubs := h.Stats().Publications
	b2 := body(2, "t1", "t2")
	b2.TopicsDigest = wire.DigestTopics(b2.TopicConfigs)
	require.Equal(t, b1.TopicsDigest, b2.TopicsDigest, "the digest ignores the DataVersion")
	mustRegister(t, h, reg("c1", "b1", "a1", 0, b2))
	require.Equal(t, pubs, h.Stats().Publications)

	stale := body(3, "t1", "t2", "t3")
	stale.TopicsDigest = b2.TopicsDigest // count 2 for a table of 3: recomputed, not trusted
	mustRegister(t, h, reg("c1", "b1", "a1", 0, stale))
	require.NotNil(t, h.Lookup("t3"))
}

func TestTopicsOnSameGroupsShareBrokerData(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2", "t3")))
	mustRegister(t, h, reg("c1", "b2", "a2", 0, body(1, "t1", "t2")))
	r1, r2, r3 := h.Lookup("t1").Route, h.Lookup("t2").Route, h.Lookup("t3").Route
	require.Same(t, &r1.BrokerDatas[0], &r2.BrokerDatas[0], "same groups, one list")
	require.Len(t, r3.BrokerDatas, 1)

	mustRegister(t, h, reg("c1", "b2", "s2", 1, body(1, "t1", "t2")))
	r1 = h.Lookup("t1").Route
	require.Equal(t, map[int64]string{0: "a2", 1: "s2"}, brokerOf(t, r1, "b2").BrokerAddrs)
	require.Equal(t, map[int64]string{0: "a2"}, brokerOf(t, r2, "b2").BrokerAddrs, "old snapshots keep their list")
	require.Same(t, &r1.BrokerDatas[0], &h.Lookup("t2").Route.BrokerDatas[0])
}
