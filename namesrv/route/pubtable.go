package route

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/rmqgo/nameserver/internal/yield"
)

// pubMinSlots is the smallest slot count of the published table.
const pubMinSlots = 1024

// tombstone marks a slot whose topic was withdrawn: probes go past it.
var tombstone = &topicEntry{name: "\x00tombstone"}

// pubIndex is topicQueueTable: the lock-free topic -> row map lookups
// read, and the coordinator's index of its rows. It is an
// open-addressed hash table with linear probing whose slots are atomic
// pointers. Only the coordinator writes it, one slot store per published
// or withdrawn topic, so publishing costs what a mutation carries and not
// what the table holds: a registration of new topics into a 1M-topic
// table costs what those topics cost.
// When the table fills, the coordinator builds a larger one and swaps it
// in; a reader still on the old table sees the state of just before.
// An entry's snapshot pointer changes without touching the table.
type pubIndex struct {
	seed  maphash.Seed
	table atomic.Pointer[pubSlots]
	live  int // entries in the current table (coordinator only)
	used  int // entries plus tombstones (coordinator only)
}

// pubSlots is one generation of pubIndex's slots; len(slots) is a power of two.
type pubSlots struct {
	mask  uint64
	slots []atomic.Pointer[topicEntry]
}

func newPubSlots(n int) *pubSlots {
	return &pubSlots{mask: uint64(n - 1), slots: make([]atomic.Pointer[topicEntry], n)}
}

func (p *pubIndex) hash(topic string) uint64 { return maphash.String(p.seed, topic) }

// get returns the published entry of topic, or nil. It takes no lock.
func (p *pubIndex) get(topic string) *topicEntry {
	t := p.table.Load()
	if t == nil {
		return nil
	}
	h := p.hash(topic)
	tag := uint32(h >> 32)
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		e := t.slots[i].Load()
		if e == nil {
			return nil
		}
		if e.tag == tag && e != tombstone && e.name == topic {
			return e
		}
	}
}

// add publishes a new row of topicQueueTable, with no snapshot yet: a
// lookup finds the row but answers as if the topic did not exist until
// the coordinator's commit stores its snapshot. Only the coordinator
// calls it.
func (p *pubIndex) add(e *topicEntry) {
	e.tag = uint32(p.hash(e.name) >> 32)
	p.reserve(1)
	p.insert(p.table.Load(), e, true)
}

// rows returns every published row (coordinator, or its read lock),
// including removed rows not withdrawn yet.
func (p *pubIndex) rows() []*topicEntry {
	out := make([]*topicEntry, 0, p.live)
	if t := p.table.Load(); t != nil {
		for i := range t.slots {
			if e := t.slots[i].Load(); e != nil && e != tombstone {
				out = append(out, e)
			}
		}
	}
	return out
}

// withdraw replaces e's slot with a tombstone, if e is published, and
// reports whether it was. The coordinator's commit withdraws a removed row
// after storing its nil snapshot, so a lookup that still finds the row
// answers as one that finds none.
func (p *pubIndex) withdraw(e *topicEntry) bool {
	t := p.table.Load()
	if t == nil {
		return false
	}
	for i := p.hash(e.name) & t.mask; ; i = (i + 1) & t.mask {
		switch t.slots[i].Load() {
		case nil:
			return false
		case e:
			t.slots[i].Store(tombstone)
			p.live--
			return true
		}
	}
}

// insert stores e in the first free slot of its probe sequence, after
// making sure no entry of that name is published (the coordinator reuses
// a topic's row while it is published, so one found is replaced in
// place). reuse lets a tombstone be taken.
func (p *pubIndex) insert(t *pubSlots, e *topicEntry, reuse bool) {
	free := -1
	for i := p.hash(e.name) & t.mask; ; i = (i + 1) & t.mask {
		cur := t.slots[i].Load()
		switch {
		case cur == nil:
			if free < 0 {
				free = int(i)
				p.used++
			}
			t.slots[free].Store(e)
			p.live++
			return
		case cur == tombstone:
			if free < 0 && reuse {
				free = int(i)
			}
		case cur.tag == e.tag && cur.name == e.name:
			t.slots[i].Store(e)
			return
		}
	}
}

// reserve rebuilds the table when n more entries would fill more than
// 5/8 of its slots (tombstones count), sized so that the live entries and
// n fill at most half of the new one.
func (p *pubIndex) reserve(n int) {
	t := p.table.Load()
	if t != nil && (p.used+n)*8 <= len(t.slots)*5 {
		return
	}
	size := pubMinSlots
	for size < 2*(p.live+n) {
		size *= 2
	}
	next := newPubSlots(size)
	p.live, p.used = 0, 0
	if t != nil {
		for i := range t.slots {
			yield.At(i)
			if e := t.slots[i].Load(); e != nil && e != tombstone {
				p.insert(next, e, false)
			}
		}
	}
	p.table.Store(next)
}
