package route

import (
	"maps"
	"slices"
	"sync/atomic"
)

// addrKey identifies a live entry or filter-server entry: the same address
// in two clusters is two entries (BrokerAddrInfo).
type addrKey struct {
	cluster, addr string
}

// topicEntry is one row of topicQueueTable plus its published snapshot.
// Lookups read snap only; the other fields belong to the coordinator.
type topicEntry struct {
	name string
	// queues holds one QueueData per broker in the iteration order of
	// Java's HashMap<String, QueueData> of the topic (queueorder.go).
	// Published snapshots share it (an interned snapshot's with every
	// topic on it), so it is replaced, never modified, unless fresh.
	queues  []QueueData
	fresh   bool   // queues was allocated in the current mutation
	dirty   bool   // queued for republication in the current mutation
	removed bool   // dropped from topicQueueTable
	qgrown  uint8  // doublings of that HashMap's table beyond 16 buckets
	tag     uint32 // high bits of the name's hash in the published table, set before it is published
	seq     uint64 // place in the order rows were added to topicQueueTable (see tableOrder)
	snap    atomic.Pointer[TopicSnapshot]
}

// has reports whether the topic has a QueueData of brokerName.
func (e *topicEntry) has(brokerName string) bool {
	_, ok := queueIndex(e.queues, brokerName)
	return ok
}

// brokerState is one row of brokerAddrTable.
type brokerState struct {
	cluster, name, zone string
	actingMaster        bool
	addrs               map[int64]string
	order               []int64     // ids of addrs in insertion order, kept by putAddr and deleteAddr
	peak                int         // most ids addrs ever held
	pub                 *BrokerData // immutable published copy; nil = stale
	covered             coverage    // topic set known to hold a QueueData of this group
	applied             applied     // topic content known to be applied for this group
}

// published returns the immutable BrokerData shared by every snapshot of
// the broker's topics, rebuilding it after a change.
func (b *brokerState) published() *BrokerData {
	if b.pub == nil {
		b.pub = &BrokerData{
			Cluster:            b.cluster,
			BrokerName:         b.name,
			BrokerAddrs:        maps.Clone(b.addrs),
			AddrOrder:          b.addrOrder(),
			ZoneName:           b.zone,
			EnableActingMaster: b.actingMaster,
		}
		if b.pub.BrokerAddrs == nil {
			b.pub.BrokerAddrs = map[int64]string{}
		}
	}
	return b.pub
}

// copyData returns a private BrokerData for admin answers. It reads the
// source fields only, so it is safe under the read lock.
func (b *brokerState) copyData() BrokerData {
	return BrokerData{
		Cluster:            b.cluster,
		BrokerName:         b.name,
		BrokerAddrs:        maps.Clone(b.addrs),
		AddrOrder:          b.addrOrder(),
		ZoneName:           b.zone,
		EnableActingMaster: b.actingMaster,
	}
}

// queueIndex finds the broker's QueueData. Topics have few brokers and
// their names share storage, so it is an equality scan.
func queueIndex(qs []QueueData, brokerName string) (int, bool) {
	for i := range qs {
		if qs[i].BrokerName == brokerName {
			return i, true
		}
	}
	return len(qs), false
}

// writable makes e.queues private to this mutation, with room for grow
// more elements.
func (t *mutation) writable(e *topicEntry, grow int) []QueueData {
	if !e.fresh {
		qs := make([]QueueData, len(e.queues), len(e.queues)+grow)
		copy(qs, e.queues)
		e.queues, e.fresh = qs, true
	}
	return e.queues
}

// row returns the topic's row in topicQueueTable, or nil: a row removed
// in the current mutation stays published (lookups answer its last
// snapshot) until the commit withdraws it, but is no longer in the table.
// Coordinator only.
func (m *Manager) row(topic string) *topicEntry {
	if e := m.pub.get(topic); e != nil && !e.removed {
		return e
	}
	return nil
}

// entry returns the topic's row, creating it when create is set. A topic
// removed earlier in the mutation gets its row back, empty, as a new row
// of topicQueueTable: lookups keep answering the row's last snapshot until
// the commit stores the next one, so they never see the topic missing in
// between.
func (t *mutation) entry(topic string, create bool) *topicEntry {
	m := t.m
	e := m.pub.get(topic)
	if e != nil && !e.removed {
		return e
	}
	if !create {
		return nil
	}
	if e != nil {
		e.removed, e.queues, e.fresh, e.qgrown = false, nil, true, 0
		t.withdrawals--
	} else {
		e = &topicEntry{name: topic, fresh: true}
		m.pub.add(e)
	}
	t.noteNewTopic(e)
	t.added = append(t.added, e)
	t.markTopic(e)
	return e
}

// putQueue stores q under topic, replacing the broker's QueueData only if
// it differs (createAndUpdateQueueData). It reports whether anything changed.
func (t *mutation) putQueue(topic string, q QueueData) bool {
	e := t.entry(topic, true)
	i, found := queueIndex(e.queues, q.BrokerName)
	if found && e.queues[i] == q {
		return false
	}
	t.m.edits++
	if found {
		t.writable(e, 0)[i] = q
	} else {
		t.insertQueue(e, q)
		t.index(q.BrokerName).add(e)
	}
	t.markTopic(e)
	return true
}

// index returns the brokerName -> topics index set, creating it.
func (t *mutation) index(brokerName string) *topicSet {
	idx := t.m.byBroker[brokerName]
	if idx == nil {
		idx = newTopicSet()
		t.m.byBroker[brokerName] = idx
	}
	return idx
}

// removeQueue drops the broker's QueueData from the topic, and the topic
// when no QueueData is left.
func (t *mutation) removeQueue(e *topicEntry, brokerName string) bool {
	i, found := queueIndex(e.queues, brokerName)
	if !found {
		return false
	}
	e.queues = slices.Delete(t.writable(e, 0), i, i+1)
	t.unindex(brokerName, e)
	if len(e.queues) == 0 {
		t.removeTopic(e)
	}
	t.markTopic(e)
	return true
}

func (t *mutation) unindex(brokerName string, e *topicEntry) {
	t.m.removals++
	t.m.edits++
	if idx := t.m.byBroker[brokerName]; idx != nil {
		idx.remove(e)
		if idx.len() == 0 {
			delete(t.m.byBroker, brokerName)
		}
	}
}

// removeTopic drops the topic's row and its index entries. The row stays
// published, answering its last snapshot, until the commit withdraws it.
func (t *mutation) removeTopic(e *topicEntry) {
	for _, q := range e.queues {
		t.unindex(q.BrokerName, e)
	}
	if !e.removed {
		e.removed = true
		t.withdrawals++
	}
	t.markTopic(e)
}

// setPerm changes the perm of the broker's QueueData of the topic.
func (t *mutation) setPerm(e *topicEntry, brokerName string, perm int32) {
	i, found := queueIndex(e.queues, brokerName)
	if !found || e.queues[i].Perm == perm {
		return
	}
	t.writable(e, 0)[i].Perm = perm
	t.m.edits++
	t.markTopic(e)
}

// brokersWithAddr lists the broker groups of cluster holding addr: the
// groups whose routes show the filter servers of (cluster, addr).
func (m *Manager) brokersWithAddr(k addrKey) []string {
	var names []string
	for name, b := range m.brokers {
		if b.cluster != k.cluster {
			continue
		}
		for _, a := range b.addrs {
			if a == k.addr {
				names = append(names, name)
				break
			}
		}
	}
	return names
}

// setFilters applies filter servers of (cluster, addr): nil leaves them,
// empty removes them, otherwise they are replaced.
func (t *mutation) setFilters(k addrKey, list []string) {
	old, had := t.m.filters[k]
	switch {
	case list == nil:
		return
	case len(list) == 0:
		if !had {
			return
		}
		delete(t.m.filters, k)
	default:
		if had && slices.Equal(old, list) {
			return
		}
		t.m.filters[k] = slices.Clone(list)
	}
	for _, name := range t.m.brokersWithAddr(k) {
		t.markBroker(name)
	}
}
