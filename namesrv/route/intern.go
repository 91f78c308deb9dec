package route

import (
	"hash/maphash"
	"slices"
	"strings"
	"unsafe"

	"github.com/rmqgo/nameserver/internal/splitmix"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

// internSeed keys the hashes of interned routes.
var internSeed = maphash.MakeSeed()

// internState is what the coordinator keeps in a snapshot it shares
// between the topics with its route (interns it). The route is identified
// by its queue data (at most keyQueues), the identity of the published
// BrokerData of each queue's group (nil when the group has none; a
// group's copy is replaced whenever its addresses, zone, acting-master
// flag or filter servers change) and whether the topic is exempt from the
// acting-master rewrite. The topic name is not part of a route. Lookups
// never read it.
type internState struct {
	groups [keyQueues]*wire.BrokerData
	next   *TopicSnapshot // next interned snapshot with the same hash
	refs   int32          // topics publishing the snapshot
	on     bool           // interned
	sync   bool           // name starts with syncBrokerMemberPrefix: no ActingMaster view
}

// internTable maps the hash of a route (internHash) to the interned
// snapshots with that hash, chained through internState.next: at 1M
// topics on 1,000 groups of width 2 there are about a thousand. A
// snapshot leaves the table, and its body slots are retired, when the
// last topic moves off it. A route held by one topic only costs the table
// one entry (about 20 bytes). Only the coordinator uses it.
type internTable map[uint64]*TopicSnapshot

// internable reports whether e's route is shared: at most keyQueues queue
// data, no static-topic mappings (which carry the topic's own table) and
// a queue map that never grew (its size decides the BrokerData order).
func (m *Manager) internable(e *topicEntry) bool {
	return len(e.queues) > 0 && len(e.queues) <= keyQueues && m.mappings[e.name] == nil && e.qgrown == 0
}

// groupsOf returns the published BrokerData of each queue's group.
func (m *Manager) groupsOf(qs []wire.QueueData) (g [keyQueues]*wire.BrokerData) {
	for i, q := range qs {
		if b := m.brokers[q.BrokerName]; b != nil {
			g[i] = b.published()
		}
	}
	return g
}

// internHash hashes a route's identity (see internState).
func internHash(g *[keyQueues]*wire.BrokerData, qs []wire.QueueData, sync bool) uint64 {
	h := uint64(len(qs))
	if sync {
		h |= 1 << 8
	}
	for i, q := range qs {
		h = splitmix.Mix64(h ^ uint64(uintptr(unsafe.Pointer(g[i]))))
		h = splitmix.Mix64(h ^ maphash.String(internSeed, q.BrokerName))
		h = splitmix.Mix64(h ^ (uint64(uint32(q.ReadQueueNums))<<32 | uint64(uint32(q.WriteQueueNums))))
		h = splitmix.Mix64(h ^ (uint64(uint32(q.Perm))<<32 | uint64(uint32(q.TopicSysFlag))))
	}
	return h
}

// snapshotOf returns the snapshot e is to publish: the interned one of its
// route, whose queue slice e then shares, or a new one (interned when
// internable). Nil when no group of e has BrokerData. It takes no
// reference (see hold).
func (m *Manager) snapshotOf(e *topicEntry) *TopicSnapshot {
	if !m.internable(e) {
		return m.buildSnapshot(e)
	}
	g := m.groupsOf(e.queues)
	sync := strings.HasPrefix(e.name, syncBrokerMemberPrefix)
	h := internHash(&g, e.queues, sync)
	for s := m.interns[h]; s != nil; s = s.intern.next {
		if s.intern.groups == g && s.intern.sync == sync && slices.Equal(s.Route.QueueDatas, e.queues) {
			e.queues = s.Route.QueueDatas
			return s
		}
	}
	s := m.buildSnapshot(e)
	if s != nil {
		s.intern = internState{groups: g, next: m.interns[h], on: true, sync: sync}
		m.interns[h] = s
	}
	return s
}

// hold counts one more topic publishing s.
func (m *Manager) hold(s *TopicSnapshot) {
	if s.intern.on {
		s.intern.refs++
	}
}

// release uncounts one topic publishing s. A snapshot no topic publishes
// any more leaves the intern table and has its bodies retired, as a
// per-topic snapshot is when replaced or withdrawn.
func (m *Manager) release(s *TopicSnapshot) {
	if s.intern.on {
		if s.intern.refs--; s.intern.refs > 0 {
			return
		}
		m.unintern(s)
	}
	s.retireBodies()
}

// unintern unlinks s from its hash chain.
func (m *Manager) unintern(s *TopicSnapshot) {
	h := internHash(&s.intern.groups, s.Route.QueueDatas, s.intern.sync)
	p := m.interns[h]
	if p == s {
		if s.intern.next == nil {
			delete(m.interns, h)
		} else {
			m.interns[h] = s.intern.next
		}
	} else {
		for p.intern.next != s {
			p = p.intern.next
		}
		p.intern.next = s.intern.next
	}
	s.intern.on, s.intern.next = false, nil
}
