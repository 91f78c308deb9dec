package route

import (
	"github.com/rmqgo/nameserver/internal/javahash"
	"github.com/rmqgo/nameserver/internal/yield"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

// mutation is the state of one change under the coordinator: what changed,
// so that commit republishes exactly the affected topics. There is one per
// Manager, reused while the coordinator is held. It has no rollback: what
// ran before a panic stays, as in RouteInfoManager.
type mutation struct {
	m           *Manager
	settings    Settings
	topics      []*topicEntry               // topics to republish
	brokers     map[string]struct{}         // broker groups whose BrokerData or filters changed
	added       []*topicEntry               // new rows of topicQueueTable
	withdrawals int                         // removed rows still published, until commit withdraws them
	notes       []wire.MinBrokerIDChange    // 905 notifications to send after unlock
	rowAt       []*topicEntry               // putTopics: the row each body key added, by Pos, reused
	loose       []looseRow                  // putTopics: rows added by keys without a valid Pos
	order       []int32                     // orderNewRows' iteration order, reused
	tcTable     *javahash.ConcurrentHashMap // orderNewRows' model, reused
	// beforeFn and beforeCommit, when set (tests only), run under the
	// coordinator before fn and between fn and the commit.
	beforeFn, beforeCommit func()
}

// markTopic queues the topic for republication.
func (mut *mutation) markTopic(e *topicEntry) {
	if !e.dirty {
		e.dirty = true
		mut.topics = append(mut.topics, e)
	}
}

// markBroker queues every topic of the broker group for republication
// and rebuilds its published BrokerData.
func (mut *mutation) markBroker(name string) {
	if mut.brokers == nil {
		mut.brokers = map[string]struct{}{}
	}
	mut.brokers[name] = struct{}{}
}

// mutate runs fn under the coordinator, publishes what it changed and
// sends the collected notifications after unlocking.
func (m *Manager) mutate(fn func(mut *mutation)) {
	m.notify(m.apply(fn))
}

// apply runs fn and commits it under the coordinator. A panic in fn
// releases the coordinator (RouteInfoManager unlocks in finally) and
// propagates; what fn changed before it stays in the tables, as in Java,
// and is published by the next mutation's commit.
func (m *Manager) apply(fn func(mut *mutation)) []wire.MinBrokerIDChange {
	m.mu.Lock()
	defer m.mu.Unlock()
	mut := &m.mut
	mut.settings = m.opts.Settings()
	if mut.beforeFn != nil {
		mut.beforeFn()
	}
	fn(mut)
	if mut.beforeCommit != nil {
		mut.beforeCommit()
	}
	return mut.commit()
}

// commit republishes the affected topics and resets the mutation.
func (mut *mutation) commit() []wire.MinBrokerIDChange {
	m := mut.m
	if len(mut.brokers) > 0 {
		m.shared.reset()
	}
	for name := range mut.brokers {
		if b := m.brokers[name]; b != nil {
			b.pub = nil
		}
		for e := range m.byBroker[name].all() {
			mut.markTopic(e)
		}
	}
	for i, e := range mut.topics {
		yield.At(i)
		mut.republish(e)
	}
	m.counts.topics.Store(int64(m.pub.live))
	m.counts.brokers.Store(int64(len(m.brokers)))
	m.counts.clusters.Store(int64(len(m.clusters)))
	notes := mut.notes
	mut.brokers = nil // a fresh map: clearing a grown one costs its capacity
	clear(mut.topics)
	clear(mut.added)
	mut.topics, mut.added, mut.notes = mut.topics[:0], mut.added[:0], nil
	if cap(mut.topics) > 1<<16 {
		mut.topics = nil
	}
	return notes
}

// republish moves the topic to the snapshot of its route (nil when it
// was removed or has no BrokerData) with one atomic store, withdraws a
// removed row, and releases the snapshot it leaves (retired when no topic
// publishes it any more).
func (mut *mutation) republish(e *topicEntry) {
	m := mut.m
	e.dirty, e.fresh = false, false
	m.counts.publications.Add(1)
	var next *TopicSnapshot
	if !e.removed {
		next = m.snapshotOf(e)
	}
	old := e.snap.Swap(next)
	if e.removed && m.pub.withdraw(e) {
		mut.withdrawals--
	}
	if old == next {
		return
	}
	if next != nil {
		m.hold(next)
	}
	if old != nil {
		m.release(old)
	}
}

// notify hands 905 notifications to the namesrv layer.
func (m *Manager) notify(notes []wire.MinBrokerIDChange) {
	if m.opts.NotifyMinBrokerIDChange == nil {
		return
	}
	for _, n := range notes {
		m.opts.NotifyMinBrokerIDChange(n)
	}
}
