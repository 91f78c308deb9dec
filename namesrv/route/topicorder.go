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
func (mut *mutation) noteNewTopic(e *topicEntry) {
	m := mut.m
	e.seq = m.rowsAdded
	m.rowsAdded++
	m.topicPeak = max(m.topicPeak, m.pub.live-mut.withdrawals)
}

// looseRow is a row added by a body key whose Pos does not place it in
// the body's Keys (a body built in memory).
type looseRow struct {
	key string
	e   *topicEntry
}

// noteFresh records that body key k, at place pos, added the last added
// row; first sizes the record for the body.
func (mut *mutation) noteFresh(body *wire.RegisterBody, k string, pos int32, first bool) {
	n := len(body.TopicConfigs)
	if first {
		mut.rowAt = slices.Grow(mut.rowAt[:0], n)[:n]
	}
	e := mut.added[len(mut.added)-1]
	if len(body.Keys) == n && pos >= 0 && int(pos) < n && body.Keys[pos] == k {
		mut.rowAt[pos] = e
		return
	}
	mut.loose = append(mut.loose, looseRow{k, e})
}

// resetFresh empties the records of noteFresh, keeping their storage.
func (mut *mutation) resetFresh() {
	clear(mut.rowAt)
	clear(mut.loose)
	mut.rowAt, mut.loose = mut.rowAt[:0], mut.loose[:0]
}

// orderNewRows gives the rows one registration added (mut.rowAt by body
// key, stamped from base on) the order Java adds them in: its decoder
// puts the body's topics into a new ConcurrentHashMap<>() in body order,
// and registerBroker walks that map, appending each new topic to its bin
// of topicQueueTable. The walk is the map's iteration order, which is not
// the body's: it goes bucket by bucket, and the map's resizes reverse
// parts of its bins (javahash.ConcurrentHashMap).
func (mut *mutation) orderNewRows(body *wire.RegisterBody, base uint64) {
	keys := body.KeyOrder()
	if len(mut.loose) > 0 {
		mut.placeLoose(keys)
	}
	for _, i := range mut.javaKeyOrder(keys) {
		if e := mut.rowAt[i]; e != nil {
			e.seq = base
			base++
		}
	}
	mut.releaseKeyOrder()
}

// javaKeyOrder returns the places in keys (the body's keys in body order)
// in the order Java walks them: its decoder puts them into a new
// ConcurrentHashMap<>() in body order, and registerBroker walks that map.
// The result is valid until the next call or releaseKeyOrder.
func (mut *mutation) javaKeyOrder(keys []string) []int32 {
	if mut.tcTable == nil {
		mut.tcTable = javahash.NewConcurrentHashMap(tcTableBuckets)
	}
	c := mut.tcTable
	c.Reset(tcTableBuckets)
	for _, k := range keys {
		c.Put(javahash.StringHash(k))
	}
	mut.order = c.Order(mut.order[:0])
	return mut.order
}

// releaseKeyOrder drops javaKeyOrder's model after a large body: none is
// kept between registrations.
func (mut *mutation) releaseKeyOrder() {
	if len(mut.order) > 1<<16 {
		mut.order, mut.tcTable = nil, nil
	}
}

// placeLoose puts the loose rows into mut.rowAt at their key's place in keys.
func (mut *mutation) placeLoose(keys []string) {
	at := make(map[string]int, len(keys))
	for i, k := range keys {
		at[k] = i
	}
	for _, r := range mut.loose {
		if i, ok := at[r.key]; ok {
			mut.rowAt[i] = r.e
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
