package route

import (
	"cmp"
	"maps"
	"slices"

	"github.com/rmqgo/nameserver/internal/javahash"
)

// topicQueueTable is RouteInfoManager's new ConcurrentHashMap<>(1024):
// 2048 buckets, grown once it holds 1536 topics.
var topicQueueTable = javahash.Kind{Initial: 2048, Concurrent: true}

// noteNewTopic stamps a row just added to topicQueueTable with the
// mutation that added it and records the table's largest size: together
// they give the row's place in Java's iteration order (tableOrder).
func (t *mutation) noteNewTopic(e *topicEntry) {
	m := t.m
	e.seq = m.mutations
	m.topicPeak = max(m.topicPeak, len(m.topics))
}

// tableOrder sorts rows in the iteration order of Java's topicQueueTable:
// by bucket of a table sized for the most topics it ever held (a
// ConcurrentHashMap never shrinks), then in the order they were added
// (putVal appends to a bin), rows added by one mutation by name. Exact
// while the table never grew past 2048 buckets; after a resize, which
// reverses parts of bins in Java, only the buckets are.
func (m *Manager) tableOrder(es []*topicEntry) []*topicEntry {
	mask := uint32(topicQueueTable.Buckets(m.topicPeak) - 1)
	type row struct {
		bucket uint32
		e      *topicEntry
	}
	rows := make([]row, len(es))
	for i, e := range es {
		rows[i] = row{javahash.Spread(javahash.StringHash(e.name)) & mask, e}
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.bucket, b.bucket), cmp.Compare(a.e.seq, b.e.seq), javahash.Compare(a.e.name, b.e.name))
	})
	for i := range rows {
		es[i] = rows[i].e
	}
	return es
}

// allRows returns every row of topicQueueTable in Java's order.
func (m *Manager) allRows() []*topicEntry {
	return m.tableOrder(slices.Collect(maps.Values(m.topics)))
}

// newTopicList builds a TopicList whose set (ConcurrentHashMap.newKeySet)
// received names in the given order: Java's TopicList body lists them in
// that set's iteration order.
func newTopicList(names []string) TopicList {
	return TopicList{TopicList: javahash.InsertionOrder(names, javahash.ConcurrentDefault, javahash.StringHash)}
}

// rowNames returns the names of rows.
func rowNames(es []*topicEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.name
	}
	return out
}
