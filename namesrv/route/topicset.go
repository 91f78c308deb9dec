package route

import (
	"iter"
	"math/bits"
	"unsafe"
)

// topicSetMin is the smallest slot count of a topicSet.
const topicSetMin = 8

// setTomb marks a slot whose row was removed: probes go past it.
var setTomb = &topicEntry{name: "\x00removed"}

// topicSet is a set of topic rows (a broker group's topics): an
// open-addressed table of row pointers with linear probing, hashed by
// address (heap objects do not move). It holds 8 bytes a slot at a load
// between 1/4 and 3/4, about 16 bytes a member, where a Go map of row
// pointers holds about 37 and a map by name 24 plus a copy of every
// name. Removal leaves a tombstone and never moves rows, so a walk may
// remove the rows it visits; only add rebuilds the table. The
// coordinator owns it.
type topicSet struct {
	slots []*topicEntry // nil = empty, setTomb = removed
	shift uint8         // 64 - log2(len(slots))
	live  int           // members
	used  int           // members plus tombstones
}

// newTopicSet returns an empty set.
func newTopicSet() *topicSet {
	s := &topicSet{}
	s.rebuild(topicSetMin)
	return s
}

func (s *topicSet) slot(e *topicEntry) uint64 {
	return uint64(uintptr(unsafe.Pointer(e))) * 0x9e3779b97f4a7c15 >> s.shift
}

// len is the number of members; 0 for a nil set.
func (s *topicSet) len() int {
	if s == nil {
		return 0
	}
	return s.live
}

// add puts e into the set; it reports whether e was not in it.
func (s *topicSet) add(e *topicEntry) bool {
	if (s.used+1)*4 > len(s.slots)*3 {
		s.rebuild(max(topicSetMin, 1<<bits.Len(uint(2*(s.live+1)-1))))
	}
	mask := uint64(len(s.slots) - 1)
	free := -1
	for i := s.slot(e); ; i = (i + 1) & mask {
		switch cur := s.slots[i]; cur {
		case e:
			return false
		case setTomb:
			if free < 0 {
				free = int(i)
			}
		case nil:
			if free < 0 {
				free = int(i)
				s.used++
			}
			s.slots[free] = e
			s.live++
			return true
		}
	}
}

// remove takes e out of the set; it reports whether e was in it.
func (s *topicSet) remove(e *topicEntry) bool {
	mask := uint64(len(s.slots) - 1)
	for i := s.slot(e); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case nil:
			return false
		case e:
			s.slots[i] = setTomb
			s.live--
			return true
		}
	}
}

// rebuild moves the members into a table of n slots (a power of two),
// dropping the tombstones.
func (s *topicSet) rebuild(n int) {
	old := s.slots
	s.slots = make([]*topicEntry, n)
	s.shift = uint8(64 - bits.TrailingZeros(uint(n)))
	s.live, s.used = 0, 0
	for _, e := range old {
		if e != nil && e != setTomb {
			s.add(e)
		}
	}
}

// all yields every member; nothing for a nil set. The walk may remove
// members (it then yields each remaining member once) but not add any.
func (s *topicSet) all() iter.Seq[*topicEntry] {
	return func(yield func(*topicEntry) bool) {
		if s == nil {
			return
		}
		for i := range s.slots {
			if e := s.slots[i]; e != nil && e != setTomb && !yield(e) {
				return
			}
		}
	}
}
