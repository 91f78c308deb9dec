package route

import "strings"

// internKey identifies a route by what its TopicRouteData is built from,
// for topics whose route the coordinator shares (interns): the queue data
// (at most keyQueues), the identity of the published BrokerData of each
// queue's group (nil when the group has none; a group's copy is replaced
// whenever its addresses, zone, acting-master flag or filter servers
// change, which gives a new key), and whether the topic is exempt from
// the acting-master rewrite. The topic name is not part of a route.
type internKey struct {
	groups [keyQueues]*BrokerData
	queues [keyQueues]QueueData
	nq     uint8
	sync   bool // name starts with syncBrokerMemberPrefix: no ActingMaster view
}

// internRef is the coordinator's count of the topic entries whose
// published snapshot is an interned one. Lookups never read it.
type internRef struct {
	key  internKey
	refs int
}

// internTable maps a route's content to the one immutable snapshot every
// topic with that route publishes: at 1M topics on 1,000 groups of width
// 2 there are about a thousand distinct routes. A snapshot is dropped
// from the table, and its body slots retired, when the last topic moves
// off it. Only the coordinator uses it.
type internTable map[internKey]*TopicSnapshot

// internKeyOf returns the key of e's route; ok is false for a route kept
// per topic: more than keyQueues queue data, or static-topic mappings
// (which carry the topic's own mapping table).
func (m *Manager) internKeyOf(e *topicEntry) (k internKey, ok bool) {
	if len(e.queues) == 0 || len(e.queues) > keyQueues || m.mappings[e.name] != nil {
		return k, false
	}
	for i, q := range e.queues {
		if b := m.brokers[q.BrokerName]; b != nil {
			k.groups[i] = b.published()
		}
		k.queues[i] = q
	}
	k.nq = uint8(len(e.queues))
	k.sync = strings.HasPrefix(e.name, syncBrokerMemberPrefix)
	return k, true
}

// snapshotOf returns the snapshot e is to publish: the interned one of its
// route, whose queue slice e then shares, or a new one (interned when its
// route has a key). Nil when no group of e has BrokerData. It takes no
// reference (see hold).
func (m *Manager) snapshotOf(e *topicEntry) *TopicSnapshot {
	k, ok := m.internKeyOf(e)
	if !ok {
		return m.buildSnapshot(e)
	}
	if s := m.interns[k]; s != nil {
		e.queues = s.Route.QueueDatas
		return s
	}
	s := m.buildSnapshot(e)
	if s != nil {
		s.intern = &internRef{key: k}
		m.interns[k] = s
	}
	return s
}

// hold counts one more topic publishing s.
func (m *Manager) hold(s *TopicSnapshot) {
	if s.intern != nil {
		s.intern.refs++
	}
}

// release uncounts one topic publishing s. A snapshot no topic publishes
// any more leaves the intern table and has its bodies retired, as a
// per-topic snapshot is when replaced or withdrawn.
func (m *Manager) release(s *TopicSnapshot) {
	if r := s.intern; r != nil {
		if r.refs--; r.refs > 0 {
			return
		}
		delete(m.interns, r.key)
	}
	s.retireBodies()
}
