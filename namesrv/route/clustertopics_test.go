package route

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// twoClusters registers b1 (c1), b2 (c1) and b3 (c2) sharing topic "shared".
func twoClusters(t *testing.T) *harness {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "shared", "only1")))
	mustRegister(t, h, reg("c1", "b2", "a2", 0, body(1, "shared", "only2")))
	mustRegister(t, h, reg("c2", "b3", "a3", 0, body(1, "shared", "only3")))
	return h
}

func TestWipeAndAddWritePerm(t *testing.T) {
	h := twoClusters(t)
	require.Equal(t, 2, h.WipeWritePerm("b1"))
	require.Equal(t, wire.PermRead, queueOf(t, h, "shared", "b1").Perm)
	require.Equal(t, wire.PermRead|wire.PermWrite, queueOf(t, h, "shared", "b2").Perm)
	require.Equal(t, 2, h.WipeWritePerm("b1"), "counts topics touched, changed or not")
	require.Equal(t, 0, h.WipeWritePerm("nobody"))

	h.RegisterTopic("only1", []wire.QueueData{{BrokerName: "b1", Perm: wire.PermRead | wire.PermInherit | wire.PermPriority}})
	require.Equal(t, wire.PermRead|wire.PermInherit|wire.PermPriority, queueOf(t, h, "only1", "b1").Perm)
	require.Equal(t, 2, h.AddWritePerm("b1"))
	require.Equal(t, wire.PermRead|wire.PermWrite, queueOf(t, h, "only1", "b1").Perm, "ADD drops other bits")
	require.Equal(t, 0, h.AddWritePerm("nobody"))
}

func TestDeleteTopic(t *testing.T) {
	h := twoClusters(t)
	h.DeleteTopic("shared", "nocluster")
	require.Len(t, h.Lookup("shared").Route.QueueDatas, 3)

	h.DeleteTopic("shared", "c1")
	r := h.Lookup("shared").Route
	require.Equal(t, []wire.QueueData{{BrokerName: "b3", ReadQueueNums: 8, WriteQueueNums: 8, Perm: 6}}, r.QueueDatas)
	require.Equal(t, "b3", r.BrokerDatas[0].BrokerName)

	h.DeleteTopic("shared", "c2")
	require.Nil(t, h.Lookup("shared"), "no queue left: topic dropped")
	require.NotContains(t, h.AllTopics().TopicList, "shared")

	h.DeleteTopic("only1", "")
	require.Nil(t, h.Lookup("only1"))
	h.DeleteTopic("absent", "")
	require.ElementsMatch(t, []string{"only2", "only3"}, h.AllTopics().TopicList)
	require.ElementsMatch(t, []string{"only2"}, h.TopicsByCluster("c1").TopicList)
}

func TestRegisterTopic(t *testing.T) {
	h := twoClusters(t)
	q := func(name string, perm int32) wire.QueueData {
		return wire.QueueData{BrokerName: name, ReadQueueNums: 2, WriteQueueNums: 2, Perm: perm, TopicSysFlag: 1}
	}
	h.RegisterTopic("new", nil)
	h.RegisterTopic("new", []wire.QueueData{q("b1", 6), q("ghost", 6)})
	require.Nil(t, h.Lookup("new"), "a new topic with an unknown broker registers nothing")

	h.RegisterTopic("new", []wire.QueueData{q("b1", 6), q("b2", 4)})
	r := h.Lookup("new").Route
	// Java's HashMap order: "b2" is in bucket 0, "b1" in bucket 15.
	require.Equal(t, []wire.QueueData{q("b2", 4), q("b1", 6)}, r.QueueDatas)
	require.Len(t, r.BrokerDatas, 2)

	h.RegisterTopic("new", []wire.QueueData{q("b1", 2), q("ghost", 6), q("b2", 2)})
	require.Equal(t, []wire.QueueData{q("b2", 4), q("b1", 2)}, h.Lookup("new").Route.QueueDatas,
		"existing topic: applied in order until the first unknown broker")

	h.RegisterTopic("new", []wire.QueueData{q("b3", 6)})
	require.Len(t, h.Lookup("new").Route.QueueDatas, 3)
}

func TestTopicLists(t *testing.T) {
	h := twoClusters(t)
	require.ElementsMatch(t, []string{"shared", "only1", "only2", "only3"}, h.AllTopics().TopicList)
	require.ElementsMatch(t, []string{"shared", "only1", "only2"}, h.TopicsByCluster("c1").TopicList)
	require.ElementsMatch(t, []string{"shared", "only3"}, h.TopicsByCluster("c2").TopicList)
	require.NotNil(t, h.TopicsByCluster("nocluster").TopicList)
	require.Empty(t, h.TopicsByCluster("nocluster").TopicList)

	sys := h.SystemTopics()
	// Java ConcurrentHashMap key-set order (String.hashCode buckets of a 16-table).
	require.Equal(t, []string{"b2", "b3", "c1", "b1", "c2"}, sys.TopicList)
	require.Equal(t, "a1", sys.BrokerAddr)
	empty := newHarness(t, false).SystemTopics()
	require.Empty(t, empty.TopicList)
	require.Empty(t, empty.BrokerAddr)
}

func TestUnitTopicLists(t *testing.T) {
	h := twoClusters(t)
	flags := map[string]int32{"unit": 1, "unitsub": 2, "both": 3, "none": 0}
	for topic, f := range flags {
		h.RegisterTopic(topic, []wire.QueueData{{BrokerName: "b1", Perm: 6, TopicSysFlag: 1},
			{BrokerName: "b2", Perm: 6, TopicSysFlag: f}})
	}
	// The first queue of Java's HashMap: b2 (bucket 0) before b1 (bucket 15).
	require.ElementsMatch(t, []string{"unit", "both"}, h.UnitTopics().TopicList, "judged by the first queue")
	require.ElementsMatch(t, []string{"unitsub", "both"}, h.HasUnitSubTopics().TopicList)
	require.ElementsMatch(t, []string{"unitsub"}, h.HasUnitSubUnUnitTopics().TopicList)
}

func TestBrokerMemberGroupAndClusterInfo(t *testing.T) {
	h := twoClusters(t)
	mustRegister(t, h, reg("c1", "b1", "s1", 1, body(1, "shared", "only1")))
	g := h.BrokerMemberGroup("anything", "b1")
	require.Equal(t, wire.BrokerMemberGroup{Cluster: "anything", BrokerName: "b1",
		BrokerAddrs: map[int64]string{0: "a1", 1: "s1"}, AddrOrder: []int64{0, 1}}, g)
	require.Equal(t, wire.BrokerMemberGroup{Cluster: "c1", BrokerName: "zz", BrokerAddrs: map[int64]string{}},
		h.BrokerMemberGroup("c1", "zz"))

	ci := h.ClusterInfo()
	// Java HashSet order: "b2" hashes to bucket 0, "b1" to bucket 15.
	require.Equal(t, map[string][]string{"c1": {"b2", "b1"}, "c2": {"b3"}}, ci.ClusterAddrTable)
	require.Equal(t, wire.BrokerData{Cluster: "c1", BrokerName: "b1", BrokerAddrs: map[int64]string{0: "a1", 1: "s1"},
		AddrOrder: []int64{0, 1}}, ci.BrokerAddrTable["b1"])
	ci.BrokerAddrTable["b1"].BrokerAddrs[0] = "mutated"
	g.BrokerAddrs[0] = "mutated"
	require.Equal(t, "a1", brokerOf(t, h.Lookup("only1").Route, "b1").BrokerAddrs[0], "answers are copies")
	require.Equal(t, "a1", h.BrokerMemberGroup("c1", "b1").BrokerAddrs[0])
}

func TestSnapshotSharesUnchangedBrokerData(t *testing.T) {
	h := twoClusters(t)
	a := brokerOf(t, h.Lookup("shared").Route, "b3")
	b := brokerOf(t, h.Lookup("only3").Route, "b3")
	require.Equal(t, a, b)
	mustRegister(t, h, reg("c2", "b3", "s3", 1, body(1, "shared", "only3")))
	require.Equal(t, map[int64]string{0: "a3", 1: "s3"}, brokerOf(t, h.Lookup("only3").Route, "b3").BrokerAddrs)
	require.Equal(t, map[int64]string{0: "a3", 1: "s3"}, brokerOf(t, h.Lookup("shared").Route, "b3").BrokerAddrs,
		"a broker change republishes every topic of the broker")
	require.Equal(t, map[int64]string{0: "a1"}, brokerOf(t, h.Lookup("shared").Route, "b1").BrokerAddrs)
}
