package route

import (
	"cmp"
	"slices"

	"github.com/rmqgo/nameserver/internal/javahash"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

// topicQueueTable is RouteInfoManager's new ConcurrentHashMap<>(1024):
// 2048 buckets, grown once it holds 1536 topics.
var topicQueueTable = javahash.Kind{Initial: 2048, Concurrent: true}

// noteNewTopic stamps a row just added to topicQueueTable with its place
// in the order rows were added and records the table's largest size:
// together they give the row's place in Java's iteration order
// (tableOrder).
func (t *mutation) noteNewTopic(e *topicEntry) {
	m := t.m
	e.seq = m.rowsAdded
	m.rowsAdded++
	m.topicPeak = max(m.topicPeak, m.pub.live-t.withdrawals)
}

// looseRow is a row added by a body key whose Pos does not place it in
// the body's Keys (a body built in memory).
type looseRow struct {
	key string
	e   *topicEntry
}

// noteFresh records that body key k, at place pos, added the last added
// row; first sizes the record for the body.
func (t *mutation) noteFresh(body *wire.RegisterBody, k string, pos int32, first bool) {
	n := len(body.TopicConfigs)
	if first {
		t.rowAt = slices.Grow(t.rowAt[:0], n)[:n]
	}
	e := t.added[len(t.added)-1]
	if len(body.Keys) == n && pos >= 0 && int(pos) < n && body.Keys[pos] == k {
		t.rowAt[pos] = e
		return
	}
	t.loose = append(t.loose, looseRow{k, e})
}

// resetFresh empties the records of noteFresh, keeping their storage.
func (t *mutation) resetFresh() {
	clear(t.rowAt)
	clear(t.loose)
	t.rowAt, t.loose = t.rowAt[:0], t.loose[:0]
}

// orderNewRows gives the rows one registration added (t.rowAt by body
// key, stamped from base on) the order Java adds them in: its decoder
// puts the body's topics into a new ConcurrentHashMap<>() in body order,
// and registerBroker walks that map, appending each new topic to its bin
// of topicQueueTable. The walk is the map's iteration order, which is not
// the body's: it goes bucket by bucket, and the map's resizes reverse
// parts of its bins (javahash.ConcurrentHashMap).
func (t *mutation) orderNewRows(body *wire.RegisterBody, base uint64) {
	keys := body.KeyOrder()
	if len(t.loose) > 0 {
		t.placeLoose(keys)
	}
	for _, i := range t.javaKeyOrder(keys) {
		if e := t.rowAt[i]; e != nil {
			e.seq = base
			base++
		}
	}
	t.releaseKeyOrder()
}

// javaKeyOrder returns the places in keys (the body's keys in body order)
// in the order Java walks them: its decoder puts them into a new
// ConcurrentHashMap<>() in body order, and registerBroker walks that map.
// The result is valid until the next call or releaseKeyOrder.
func (t *mutation) javaKeyOrder(keys []string) []int32 {
	if t.tcTable == nil {
		t.tcTable = javahash.NewConcurrentHashMap(tcTableBuckets)
	}
	c := t.tcTable
	c.Reset(tcTableBuckets)
	for _, k := range keys {
		c.Put(javahash.StringHash(k))
	}
	t.order = c.Order(t.order[:0])
	return t.order
}

// releaseKeyOrder drops javaKeyOrder's model after a large body: none is
// kept between registrations.
func (t *mutation) releaseKeyOrder() {
	if len(t.order) > 1<<16 {
		t.order, t.tcTable = nil, nil
	}
}

// placeLoose puts the loose rows into t.rowAt at their key's place in keys.
func (t *mutation) placeLoose(keys []string) {
	at := make(map[string]int, len(keys))
	for i, k := range keys {
		at[k] = i
	}
	for _, r := range t.loose {
		if i, ok := at[r.key]; ok {
			t.rowAt[i] = r.e
		}
	}
}

// tcTableBuckets is the first table of the decoder's topicConfigTable
// (new ConcurrentHashMap<>()).
const tcTableBuckets = 16

// tableOrder sorts rows in the iteration order of Java's topicQueueTable:
// by bucket of a table sized for the most topics it ever held (a
// ConcurrentHashMap never shrinks), then in the order they were added
// (putVal appends to a bin). Exact while the table never grew past 2048
// buckets and no bin held more than eight topics; after a resize, which
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
		return cmp.Or(cmp.Compare(a.bucket, b.bucket), cmp.Compare(a.e.seq, b.e.seq))
	})
	for i := range rows {
		es[i] = rows[i].e
	}
	return es
}

// allRows returns every row of topicQueueTable in Java's order.
func (m *Manager) allRows() []*topicEntry {
	return m.tableOrder(slices.DeleteFunc(m.pub.rows(), func(e *topicEntry) bool { return e.removed }))
}

// newTopicList builds a TopicList whose set (ConcurrentHashMap.newKeySet)
// received names in the given order: Java's TopicList body lists them in
// that set's iteration order.
func newTopicList(names []string) wire.TopicList {
	return wire.TopicList{TopicList: javahash.InsertionOrder(names, javahash.ConcurrentDefault, javahash.StringHash)}
}

// rowNames returns the names of rows.
func rowNames(es []*topicEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.name
	}
	return out
}
