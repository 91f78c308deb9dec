package route

import (
	"cmp"
	"slices"

	"github.com/rmqgo/nameserver/internal/javahash"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

// A topic's queues are Java's HashMap<String, QueueData> (new HashMap<>(),
// filled by put and emptied by remove; it never shrinks). Its iteration
// order, which Java's route lists and unit-topic checks follow, is by
// bucket (javahash.Spread(String.hashCode) & (buckets-1)), and inside a
// bucket by insertion: put appends a new key to its bin, a put of a
// present key keeps its place, and resize splits every bin into its low
// and high halves keeping their order. A bin of eight or more keys in a
// table of 64 or more buckets becomes a tree, whose order this does not
// follow (a topic on more than 48 broker groups with eight of them in one
// bucket).
const queueMapBuckets = 16

// queueBuckets is the table size of e's queue HashMap.
func (e *topicEntry) queueBuckets() int { return queueMapBuckets << e.qgrown }

// nameBucket is the bucket of a broker name in a HashMap of buckets.
func nameBucket(name string, buckets int) uint32 {
	return javahash.Spread(javahash.StringHash(name)) & uint32(buckets-1)
}

// insertQueue adds a QueueData of a broker e has none of, at the end of
// its bucket, and doubles the table when it holds more than three
// quarters of its buckets (HashMap.putVal, HashMap.resize). The first
// wire.QueueData of a topic needs no bucket.
func (mut *mutation) insertQueue(e *topicEntry, q wire.QueueData) {
	if len(e.queues) == 0 {
		e.queues, e.fresh = []wire.QueueData{q}, true
		return
	}
	mut.insertBucketed(e, q)
}

func (mut *mutation) insertBucketed(e *topicEntry, q wire.QueueData) {
	qs := mut.writable(e, 1)
	n := e.queueBuckets()
	b := nameBucket(q.BrokerName, n)
	i := len(qs)
	for i > 0 && nameBucket(qs[i-1].BrokerName, n) > b {
		i--
	}
	qs = slices.Insert(qs, i, q)
	for len(qs) > e.queueBuckets()*3/4 && e.qgrown < 24 {
		e.qgrown++
		sortByBucket(qs, e.queueBuckets())
	}
	e.queues = qs
}

// sortByBucket orders queues by bucket in a table of buckets, keeping
// their order inside a bucket.
func sortByBucket(qs []wire.QueueData, buckets int) {
	slices.SortStableFunc(qs, func(a, b wire.QueueData) int {
		return cmp.Compare(nameBucket(a.BrokerName, buckets), nameBucket(b.BrokerName, buckets))
	})
}

// brokerOrder returns the queues in the order Java lists the topic's
// BrokerData: pickupTopicRouteData walks new HashSet<>(queueDataMap.keySet()),
// whose table is tableSizeFor(max((int)(n/.75f)+1, 16)) and is filled in
// the queue map's order. Mostly that is the queue map's table, and qs
// itself is returned.
func brokerOrder(qs []wire.QueueData, queueBuckets int) []wire.QueueData {
	n := javahash.TableSizeFor(max(int(float32(len(qs))/0.75)+1, 16))
	if n == queueBuckets {
		return qs
	}
	out := slices.Clone(qs)
	sortByBucket(out, n)
	return out
}
