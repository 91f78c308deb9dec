package route

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

func TestRegisterMasterPublishesRoute(t *testing.T) {
	h := newHarness(t, false)
	res := mustRegister(t, h, reg("c1", "b1", "10.0.0.1:10911", 0, body(1, "t1", "t2")))
	require.Equal(t, wire.RegisterResult{}, res)

	s := h.Lookup("t1")
	require.NotNil(t, s)
	require.Same(t, s, h.Lookup("t2"), "t1 and t2 have equal routes: one shared snapshot")
	require.Equal(t, []wire.QueueData{{BrokerName: "b1", ReadQueueNums: 8, WriteQueueNums: 8, Perm: 6}}, s.Route.QueueDatas)
	require.Equal(t, []wire.BrokerData{{Cluster: "c1", BrokerName: "b1", BrokerAddrs: map[int64]string{0: "10.0.0.1:10911"},
		AddrOrder: []int64{0}}},
		s.Route.BrokerDatas)
	require.NotNil(t, s.Route.FilterServerTable)
	require.Empty(t, s.Route.FilterServerTable)
	require.Nil(t, s.Route.TopicQueueMappingByBroker)
	require.Nil(t, s.ActingMaster)
	require.Nil(t, h.Lookup("nope"))
	require.Equal(t, Stats{Topics: 2, Brokers: 1, Clusters: 1, LiveBrokers: 1, Registrations: 1, Publications: 2},
		h.Stats())
}

func TestRegisterSingleTopicGuard(t *testing.T) {
	h := newHarness(t, false)
	_, err := h.RegisterBroker(reg("c1", "b1", "a1", 0, body(1, "only")))
	require.ErrorIs(t, err, ErrRegisterFailed)
	// Steps 1-5 stay: the group exists with no address, nothing is live.
	ci := h.ClusterInfo()
	require.Equal(t, []string{"b1"}, ci.ClusterAddrTable["c1"])
	require.Empty(t, ci.BrokerAddrTable["b1"].BrokerAddrs)
	require.Nil(t, h.Lookup("only"))
	require.Equal(t, 0, h.Stats().LiveBrokers)

	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "x", "y")))
	// Known id: one topic is fine.
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(2, "only")))
	require.NotNil(t, h.Lookup("only"))
}

func TestRegisterSameAddressNewIDDropsOldID(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	mustRegister(t, h, reg("c1", "b1", "a2", 1, body(1, "t1", "t2")))
	// a2 becomes master: <1,a2> goes before <0,a2> replaces a1.
	mustRegister(t, h, reg("c1", "b1", "a2", 0, body(2, "t1", "t2")))
	require.Equal(t, map[int64]string{0: "a2"}, h.BrokerMemberGroup("c1", "b1").BrokerAddrs)
	require.Equal(t, map[int64]string{0: "a2"}, h.Lookup("t1").Route.BrokerDatas[0].BrokerAddrs)
}

func TestRegisterIDTakeoverByStateVersion(t *testing.T) {
	h := newHarness(t, false)
	old := body(1, "t1", "t2")
	old.DataVersion.StateVersion = 5
	mustRegister(t, h, reg("c1", "b1", "a1", 0, old))

	stale := body(1, "t1", "t2")
	stale.DataVersion.StateVersion = 3
	res, err := h.RegisterBroker(reg("c1", "b1", "a2", 0, stale))
	require.NoError(t, err)
	require.Equal(t, wire.RegisterResult{}, res)
	require.Equal(t, map[int64]string{0: "a1"}, h.BrokerMemberGroup("c1", "b1").BrokerAddrs)
	changed, stored := h.QueryDataVersion("c1", "a2", &stale.DataVersion)
	require.True(t, changed)
	require.Nil(t, stored, "the refused newcomer has no live entry")

	equal := body(2, "t1", "t2")
	equal.DataVersion.StateVersion = 5
	mustRegister(t, h, reg("c1", "b1", "a2", 0, equal))
	require.Equal(t, map[int64]string{0: "a2"}, h.BrokerMemberGroup("c1", "b1").BrokerAddrs)
}

func TestRegisterSlaveRules(t *testing.T) {
	h := newHarness(t, false)
	oldSlave := reg("c1", "old", "o1", 1, body(1, "ot1", "ot2"))
	oldSlave.EnableActingMaster = nil
	mustRegister(t, h, oldSlave)
	require.Nil(t, h.Lookup("ot1"), "an old-version slave never contributes topics")

	mustRegister(t, h, reg("c1", "prime", "p1", 1, body(1, "pt1", "pt2")))
	require.Equal(t, wire.PermRead|wire.PermWrite, queueOf(t, h, "pt1", "prime").Perm, "prime slave without acting master")

	acting := reg("c1", "acting", "s1", 1, body(1, "at1", "at2"))
	acting.EnableActingMaster = boolp(true)
	mustRegister(t, h, acting)
	require.Equal(t, wire.PermRead, queueOf(t, h, "at1", "acting").Perm, "acting-master prime slave is read-only")
	am := h.Lookup("at1").ActingMaster
	require.NotNil(t, am)
	require.Equal(t, map[int64]string{0: "s1"}, am.BrokerDatas[0].BrokerAddrs)

	mustRegister(t, h, reg("c1", "m", "m0", 0, body(1, "mt1", "mt2")))
	mustRegister(t, h, reg("c1", "m", "m1", 1, body(1, "mt1", "mt2", "slaveonly")))
	require.Nil(t, h.Lookup("slaveonly"), "a non-prime slave's topics are ignored")
	require.Equal(t, map[int64]string{0: "m0", 1: "m1"}, h.Lookup("mt1").Route.BrokerDatas[0].BrokerAddrs)
}

func TestRegisterUnchangedDataVersion(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	require.Equal(t, 2, h.WipeWritePerm("b1"))
	before := h.Lookup("t1")
	pubs := h.Stats().Publications

	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	require.Same(t, before, h.Lookup("t1"), "unchanged re-registration must not republish")
	require.Equal(t, pubs, h.Stats().Publications)
	require.Equal(t, wire.PermRead, queueOf(t, h, "t1", "b1").Perm, "a WIPE survives an unchanged DataVersion")

	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2", "t3")))
	require.NotNil(t, h.Lookup("t3"), "new topics are added with an unchanged DataVersion")
	require.Equal(t, wire.PermRead, queueOf(t, h, "t1", "b1").Perm)
	require.Equal(t, pubs+1, h.Stats().Publications)

	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(2, "t1", "t2", "t3")))
	require.Equal(t, wire.PermRead|wire.PermWrite, queueOf(t, h, "t1", "b1").Perm, "a new DataVersion rewrites every topic")
}

func TestUnchangedRegistrationRestoresDeletedTopic(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	mustRegister(t, h, reg("c1", "b2", "a2", 0, body(1, "t1", "t2")))
	h.DeleteTopic("t1", "")
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	require.Len(t, h.Lookup("t1").Route.QueueDatas, 1, "a topic missing for the broker is added back")
	h.DeleteTopic("t2", "c1")
	mustRegister(t, h, reg("c1", "b2", "a2", 0, body(1, "t1", "t2")))
	require.Len(t, h.Lookup("t1").Route.QueueDatas, 2)
	require.Len(t, h.Lookup("t2").Route.QueueDatas, 1)
	pubs := h.Stats().Publications
	mustRegister(t, h, reg("c1", "b2", "a2", 0, body(1, "t1", "t2")))
	require.Equal(t, pubs, h.Stats().Publications)
}

func TestDeleteTopicWithBrokerRegistration(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "keep", "gone")))
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(2, "keep", "x")))
	require.NotNil(t, h.Lookup("gone"), "off by default")

	h.set(Settings{DeleteTopicWithBrokerRegistration: true})
	withMapping := body(3, "keep", "x")
	withMapping.MappingInfos = map[string]*wire.TopicQueueMappingInfo{"keep": {Topic: "keep", Bname: "b1"}}
	mustRegister(t, h, reg("c1", "b1", "a1", 0, withMapping))
	require.NotNil(t, h.Lookup("gone"), "static topics disable the deletion")

	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(4, "keep", "x")))
	require.Nil(t, h.Lookup("gone"))
	require.NotNil(t, h.Lookup("keep"))
	require.ElementsMatch(t, []string{"keep", "x"}, h.AllTopics().TopicList)
}

func TestRegisterMappings(t *testing.T) {
	h := newHarness(t, false)
	info := &wire.TopicQueueMappingInfo{Topic: "t1", Bname: "b1", TotalQueues: 8, Epoch: 1}
	b := body(1, "t1", "t2")
	b.MappingInfos = map[string]*wire.TopicQueueMappingInfo{"t1": info, "nil": nil}
	mustRegister(t, h, reg("c1", "b1", "a1", 0, b))
	require.Same(t, info, h.Lookup("t1").Route.TopicQueueMappingByBroker["b1"])

	info2 := &wire.TopicQueueMappingInfo{Topic: "t1", Bname: "b1", Epoch: 2}
	same := body(1, "t1", "t2")
	same.MappingInfos = map[string]*wire.TopicQueueMappingInfo{"t1": info2}
	mustRegister(t, h, reg("c1", "b1", "a1", 0, same))
	require.Same(t, info, h.Lookup("t1").Route.TopicQueueMappingByBroker["b1"], "unchanged DataVersion skips mappings")

	h.DeleteTopic("t1", "")
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(2, "t1", "t2")))
	require.Same(t, info, h.Lookup("t1").Route.TopicQueueMappingByBroker["b1"], "delete keeps the mapping table")
}

func TestRegisterFilterServers(t *testing.T) {
	h := newHarness(t, false)
	b := body(1, "t1", "t2")
	b.FilterServerList = []string{"f1", "f2"}
	mustRegister(t, h, reg("c1", "b1", "a1", 0, b))
	require.Equal(t, map[string][]string{"a1": {"f1", "f2"}}, h.Lookup("t1").Route.FilterServerTable)

	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	require.Equal(t, map[string][]string{"a1": {"f1", "f2"}}, h.Lookup("t1").Route.FilterServerTable, "nil keeps")

	empty := body(1, "t1", "t2")
	empty.FilterServerList = []string{}
	mustRegister(t, h, reg("c1", "b1", "a1", 0, empty))
	require.Empty(t, h.Lookup("t1").Route.FilterServerTable)
	require.NotNil(t, h.Lookup("t1").Route.FilterServerTable)
}

func TestRegisterResultMasterAddr(t *testing.T) {
	h := newHarness(t, false)
	require.Equal(t, wire.RegisterResult{}, mustRegister(t, h, reg("c1", "b1", "s1", 1, body(1, "t1", "t2"))))
	require.Equal(t, wire.RegisterResult{}, mustRegister(t, h, reg("c1", "b1", "m0", 0, body(1, "t1", "t2"))))
	res := mustRegister(t, h, reg("c1", "b1", "s1", 1, body(1, "t1", "t2")))
	require.Equal(t, wire.RegisterResult{HAServerAddr: "m0-ha", MasterAddr: "m0"}, res)
}

func TestRegisterNotifiesMinBrokerIDChange(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b1", "s2", 2, body(1, "t1", "t2")))
	mustRegister(t, h, reg("c1", "b1", "s1", 1, body(1, "t1", "t2")))
	require.Empty(t, h.takeNotes(), "off by default")

	h.set(Settings{NotifyMinBrokerIDChanged: true})
	mustRegister(t, h, reg("c1", "b1", "m0", 0, body(1, "t1", "t2")))
	require.Equal(t, []wire.MinBrokerIDChange{{TargetAddrs: []string{"s1", "s2"}, MinBrokerID: 0, MinBrokerAddr: "m0",
		HABrokerAddr: "m0-ha"}}, h.takeNotes())
	mustRegister(t, h, reg("c1", "b1", "s1", 1, body(1, "t1", "t2")))
	require.Empty(t, h.takeNotes(), "not a lower id")
}

func TestRegisterZoneAndActingMasterLastWins(t *testing.T) {
	h := newHarness(t, false)
	r := reg("c1", "b1", "a1", 0, body(1, "t1", "t2"))
	r.ZoneName = "z1"
	mustRegister(t, h, r)
	require.Equal(t, "z1", h.Lookup("t1").Route.BrokerDatas[0].ZoneName)

	r2 := reg("c1", "b1", "a2", 1, body(1, "t1", "t2"))
	r2.EnableActingMaster = boolp(true)
	mustRegister(t, h, r2)
	bd := h.Lookup("t1").Route.BrokerDatas[0]
	require.Equal(t, "", bd.ZoneName)
	require.True(t, bd.EnableActingMaster)
	require.Equal(t, "c1", h.ClusterInfo().BrokerAddrTable["b1"].Cluster)
}

func TestRegisterTwoBrokersOneTopic(t *testing.T) {
	h := newHarness(t, false)
	mustRegister(t, h, reg("c1", "b2", "a2", 0, body(1, "t1", "t2")))
	mustRegister(t, h, reg("c1", "b1", "a1", 0, body(1, "t1", "t2")))
	r := h.Lookup("t1").Route
	require.Len(t, r.QueueDatas, 2)
	require.Equal(t, "b2", r.QueueDatas[0].BrokerName, "queues in Java's HashMap order: b2 in bucket 0, b1 in 15")
	require.Len(t, r.BrokerDatas, 2)
}
