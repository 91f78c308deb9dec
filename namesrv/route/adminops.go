package route

import (
	"maps"
	"slices"

	"github.com/rmqgo/nameserver/internal/javahash"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

// Topic system flags (TopicSysFlag.java).
const (
	topicSysFlagUnit    int32 = 1 << 0
	topicSysFlagUnitSub int32 = 1 << 1
)

// WipeWritePerm clears WRITE on every queue of brokerName
// (WIPE_WRITE_PERM_OF_BROKER) and returns the number of topics touched.
func (m *Manager) WipeWritePerm(brokerName string) int {
	return m.changePerm(brokerName, func(p int32) int32 { return p &^ wire.PermWrite })
}

// AddWritePerm sets every queue of brokerName to READ|WRITE
// (ADD_WRITE_PERM_OF_BROKER) and returns the number of topics touched.
func (m *Manager) AddWritePerm(brokerName string) int {
	return m.changePerm(brokerName, func(int32) int32 { return wire.PermRead | wire.PermWrite })
}

func (m *Manager) changePerm(brokerName string, f func(int32) int32) (n int) {
	m.mutate(func(mut *mutation) {
		for e := range m.byBroker[brokerName].all() {
			if i, ok := queueIndex(e.queues, brokerName); ok {
				mut.setPerm(e, brokerName, f(e.queues[i].Perm))
				n++
			}
		}
	})
	return n
}

// DeleteTopic is DELETE_TOPIC_IN_NAMESRV: with a cluster it removes the
// topic's queues of that cluster's broker groups (an unknown cluster does
// nothing), without one the whole topic. Mappings are kept.
func (m *Manager) DeleteTopic(topic, cluster string) {
	m.mutate(func(mut *mutation) {
		e := m.row(topic)
		if e == nil {
			return
		}
		if cluster == "" {
			mut.removeTopic(e)
			return
		}
		for name := range m.clusters[cluster] {
			mut.removeQueue(e, name)
		}
	})
}

// RegisterTopic is REGISTER_TOPIC_IN_NAMESRV. For an existing topic the
// queues are applied in order until one names an unknown broker group; a
// new topic is registered only if every broker group is known.
func (m *Manager) RegisterTopic(topic string, queueDatas []wire.QueueData) {
	if len(queueDatas) == 0 {
		return
	}
	m.mutate(func(mut *mutation) {
		if m.row(topic) == nil && !m.allKnown(queueDatas) {
			m.log.Warn("register topic names an unknown broker", "topic", topic)
			return
		}
		for _, q := range queueDatas {
			if m.brokers[q.BrokerName] == nil {
				m.log.Warn("register topic names an unknown broker", "topic", topic, "broker", q.BrokerName)
				return
			}
			mut.putQueue(topic, q)
		}
	})
}

func (m *Manager) allKnown(qds []wire.QueueData) bool {
	for _, q := range qds {
		if m.brokers[q.BrokerName] == nil {
			return false
		}
	}
	return true
}

// ClusterInfo answers GET_BROKER_CLUSTER_INFO with private copies.
func (m *Manager) ClusterInfo() wire.ClusterInfo {
	m.mu.RLock()
	defer m.mu.RUnlock()
	ci := wire.ClusterInfo{
		BrokerAddrTable:  make(map[string]wire.BrokerData, len(m.brokers)),
		ClusterAddrTable: make(map[string][]string, len(m.clusters)),
	}
	for name, b := range m.brokers {
		ci.BrokerAddrTable[name] = b.copyData()
	}
	for c, names := range m.clusters {
		ci.ClusterAddrTable[c] = javaSetOrder(slices.Collect(maps.Keys(names)))
	}
	return ci
}

// AllTopics lists every topic of topicQueueTable, in the order of Java's
// TopicList filled from its key set (getAllTopicList).
func (m *Manager) AllTopics() wire.TopicList {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return newTopicList(rowNames(m.allRows()))
}

// TopicsByCluster lists the topics with a queue on any broker group of
// cluster; an unknown cluster gives an empty list. Java's getTopicsByCluster
// adds, for each broker name of the cluster's set, the topics of
// topicQueueTable that have its QueueData.
func (m *Manager) TopicsByCluster(cluster string) wire.TopicList {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var names []string
	seen := map[*topicEntry]struct{}{}
	for _, b := range javaSetOrder(slices.Collect(maps.Keys(m.clusters[cluster]))) {
		for _, e := range m.tableOrder(slices.Collect(m.byBroker[b].all())) {
			if _, dup := seen[e]; !dup {
				seen[e] = struct{}{}
				names = append(names, e.name)
			}
		}
	}
	return newTopicList(names)
}

// SystemTopics answers GET_SYSTEM_TOPIC_LIST_FROM_NS: every cluster name
// and broker name (added as Java's getSystemTopicList adds them: each
// cluster of clusterAddrTable, then its broker names), and the address
// its HashMap iterates first of the first broker group that has one, in
// the iteration order of Java's brokerAddrTable.
func (m *Manager) SystemTopics() wire.TopicList {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var added []string
	seen := map[string]struct{}{}
	clusters := slices.Collect(maps.Keys(m.clusters))
	javahash.Sort(clusters, javahash.ClusterAddrTable, javahash.StringHash, javahash.Compare)
	for _, c := range clusters {
		for _, n := range append([]string{c}, javaSetOrder(slices.Collect(maps.Keys(m.clusters[c])))...) {
			if _, dup := seen[n]; !dup {
				seen[n] = struct{}{}
				added = append(added, n)
			}
		}
	}
	tl := newTopicList(added)
	names := slices.Collect(maps.Keys(m.brokers))
	javahash.Sort(names, javahash.BrokerAddrTable, javahash.StringHash, javahash.Compare)
	for _, name := range names {
		if addr, ok := m.brokers[name].firstAddr(); ok {
			tl.BrokerAddr = addr
			break
		}
	}
	return tl
}

// UnitTopics lists topics whose first queue has the unit flag.
func (m *Manager) UnitTopics() wire.TopicList {
	return m.topicsByFlag(func(f int32) bool { return f&topicSysFlagUnit != 0 })
}

// HasUnitSubTopics lists topics whose first queue has the unit-sub flag.
func (m *Manager) HasUnitSubTopics() wire.TopicList {
	return m.topicsByFlag(func(f int32) bool { return f&topicSysFlagUnitSub != 0 })
}

// HasUnitSubUnUnitTopics lists topics whose first queue has the unit-sub
// flag but not the unit flag.
func (m *Manager) HasUnitSubUnUnitTopics() wire.TopicList {
	return m.topicsByFlag(func(f int32) bool {
		return f&topicSysFlagUnitSub != 0 && f&topicSysFlagUnit == 0
	})
}

func (m *Manager) topicsByFlag(match func(int32) bool) wire.TopicList {
	m.mu.RLock()
	defer m.mu.RUnlock()
	names := []string{}
	for _, e := range m.allRows() {
		if len(e.queues) > 0 && match(e.queues[0].TopicSysFlag) {
			names = append(names, e.name)
		}
	}
	return newTopicList(names)
}

// BrokerMemberGroup answers GET_BROKER_MEMBER_GROUP: the addresses of the
// broker group (the cluster is not checked; unknown gives no addresses).
func (m *Manager) BrokerMemberGroup(cluster, brokerName string) wire.BrokerMemberGroup {
	m.mu.RLock()
	defer m.mu.RUnlock()
	g := wire.BrokerMemberGroup{Cluster: cluster, BrokerName: brokerName, BrokerAddrs: map[int64]string{}}
	if b := m.brokers[brokerName]; b != nil {
		maps.Copy(g.BrokerAddrs, b.addrs)
		g.AddrOrder = b.addrOrder()
	}
	return g
}

// javaSetOrder orders broker names as a Java HashSet iterates them.
func javaSetOrder(names []string) []string {
	javahash.SortStrings(names, 16, false)
	return names
}
