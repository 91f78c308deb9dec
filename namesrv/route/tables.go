package route

import (
	"maps"
	"slices"
	"sync/atomic"

	"github.com/rmqgo/nameserver/namesrv/wire"
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
	queues  []wire.QueueData
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
	order               []int64          // ids of addrs in insertion order, kept by putAddr and deleteAddr
	peak                int              // most ids addrs ever held
	pub                 *wire.BrokerData // immutable published copy; nil = stale
	covered             coverage         // topic set known to hold a wire.QueueData of this group
	applied             applied          // topic content known to be applied for this group
}

// published returns the immutable BrokerData shared by every snapshot of
// the broker's topics, rebuilding it after a change.
func (b *brokerState) published() *wire.BrokerData {
	if b.pub == nil {
		b.pub = &wire.BrokerData{
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
func (b *brokerState) copyData() wire.BrokerData {
	return wire.BrokerData{
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
func queueIndex(qs []wire.QueueData, brokerName string) (int, bool) {
	for i := range qs {
		if qs[i].BrokerName == brokerName {
			return i, true
		}
	}
	return len(qs), false
}

// writable makes e.queues private to this mutation, with room for grow
// more elements.
func (mut *mutation) writable(e *topicEntry, grow int) []wire.QueueData {
	if !e.fresh {
		qs := make([]wire.QueueData, len(e.queues), len(e.queues)+grow)
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
func (mut *mutation) entry(topic string, create bool) *topicEntry {
	m := mut.m
	e := m.pub.get(topic)
	if e != nil && !e.removed {
		return e
	}
	if !create {
		return nil
	}
	if e != nil {
		e.removed, e.queues, e.fresh, e.qgrown = false, nil, true, 0
		mut.withdrawals--
	} else {
		e = &topicEntry{name: topic, fresh: true}
		m.pub.add(e)
	}
	mut.noteNewTopic(e)
	mut.added = append(mut.added, e)
	mut.markTopic(e)
	return e
}

// putQueue stores q under topic, replacing the broker's QueueData only if
// it differs (createAndUpdateQueueData). It reports whether anything changed.
func (mut *mutation) putQueue(topic string, q wire.QueueData) bool {
	e := mut.entry(topic, true)
	i, found := queueIndex(e.queues, q.BrokerName)
	if found && e.queues[i] == q {
		return false
	}
	mut.m.edits++
	if found {
		mut.writable(e, 0)[i] = q
	} else {
		mut.insertQueue(e, q)
		mut.index(q.BrokerName).add(e)
	}
	mut.markTopic(e)
	return true
}

// index returns the brokerName -> topics index set, creating it.
func (mut *mutation) index(brokerName string) *topicSet {
	idx := mut.m.byBroker[brokerName]
	if idx == nil {
		idx = newTopicSet()
		mut.m.byBroker[brokerName] = idx
	}
	return idx
}

// removeQueue drops the broker's QueueData from the topic, and the topic
// when no QueueData is left.
func (mut *mutation) removeQueue(e *topicEntry, brokerName string) bool {
	i, found := queueIndex(e.queues, brokerName)
	if !found {
		return false
	}
	e.queues = slices.Delete(mut.writable(e, 0), i, i+1)
	mut.unindex(brokerName, e)
	if len(e.queues) == 0 {
		mut.removeTopic(e)
	}
	mut.markTopic(e)
	return true
}

func (mut *mutation) unindex(brokerName string, e *topicEntry) {
	mut.m.removals++
	mut.m.edits++
	if idx := mut.m.byBroker[brokerName]; idx != nil {
		idx.remove(e)
		if idx.len() == 0 {
			delete(mut.m.byBroker, brokerName)
		}
	}
}

// removeTopic drops the topic's row and its index entries. The row stays
// published, answering its last snapshot, until the commit withdraws it.
func (mut *mutation) removeTopic(e *topicEntry) {
	for _, q := range e.queues {
		mut.unindex(q.BrokerName, e)
	}
	if !e.removed {
		e.removed = true
		mut.withdrawals++
	}
	mut.markTopic(e)
}

// setPerm changes the perm of the broker's QueueData of the topic.
func (mut *mutation) setPerm(e *topicEntry, brokerName string, perm int32) {
	i, found := queueIndex(e.queues, brokerName)
	if !found || e.queues[i].Perm == perm {
		return
	}
	mut.writable(e, 0)[i].Perm = perm
	mut.m.edits++
	mut.markTopic(e)
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
func (mut *mutation) setFilters(k addrKey, list []string) {
	old, had := mut.m.filters[k]
	switch {
	case list == nil:
		return
	case len(list) == 0:
		if !had {
			return
		}
		delete(mut.m.filters, k)
	default:
		if had && slices.Equal(old, list) {
			return
		}
		mut.m.filters[k] = slices.Clone(list)
	}
	for _, name := range mut.m.brokersWithAddr(k) {
		mut.markBroker(name)
	}
}
