package route

import (
	"slices"

	"github.com/rmqgo/nameserver/internal/javahash"
)

// A broker group's addresses are Java's HashMap<Long, String> (new
// HashMap<>(), never shrunk). Its iteration order is by bucket
// (Long.hashCode spread, masked by the table) and inside a bucket by
// insertion, so ids sharing a bucket (0 and 16, -1 and 0) come out in
// the order they were put. brokerState keeps that insertion order; the
// published BrokerData carries the resulting iteration order
// (BrokerData.AddrOrder), from which the encoder derives the order of a
// copy (new HashMap<>(m), putAll), which has a table of its own size.

// putAddr maps id to addr, a new id going last in insertion order.
func (b *brokerState) putAddr(id int64, addr string) {
	if _, ok := b.addrs[id]; !ok {
		b.order = append(b.order, id)
		b.peak = max(b.peak, len(b.order))
	}
	b.addrs[id] = addr
}

// deleteAddr removes id.
func (b *brokerState) deleteAddr(id int64) {
	delete(b.addrs, id)
	if i := slices.Index(b.order, id); i >= 0 {
		b.order = slices.Delete(b.order, i, i+1)
	}
}

// minID returns the smallest id of addrs; ok is false when it is empty.
// It walks order, which holds the same ids, rather than the map: a map
// iteration costs more than the few ids of a group.
func (b *brokerState) minID() (minID int64, ok bool) {
	for _, id := range b.order {
		if !ok || id < minID {
			minID, ok = id, true
		}
	}
	return minID, ok
}

// addrOrder returns the ids in the iteration order of Java's map: its
// table is sized for the most ids it ever held.
func (b *brokerState) addrOrder() []int64 {
	if len(b.order) != len(b.addrs) {
		return nil
	}
	live := javahash.Kind{Initial: javahash.HashMapDefault.Buckets(b.peak)}
	return javahash.InsertionOrder(b.order, live, javahash.LongHash)
}

// firstAddr returns the address Java's map iterates first.
func (b *brokerState) firstAddr() (string, bool) {
	if order := b.addrOrder(); len(order) > 0 {
		return b.addrs[order[0]], true
	}
	id, ok := minBrokerID(b.addrs)
	return b.addrs[id], ok
}
