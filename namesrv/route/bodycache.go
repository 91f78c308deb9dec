package route

import "sync/atomic"

// DefaultBodyCacheBytes is the default budget of a BodyCache: about 70,000
// route bodies of four broker groups.
const DefaultBodyCacheBytes = 64 << 20

// BodySlot names one cached encoding of a snapshot's route: the response's
// JSON flavour crossed with the plain or acting-master view.
type BodySlot uint8

// The body slots of a TopicSnapshot.
const (
	BodyDefault        BodySlot = iota // Route, fastjson's default flavour
	BodyStandard                       // Route, standard JSON
	BodyActingDefault                  // ActingMaster, fastjson's default flavour
	BodyActingStandard                 // ActingMaster, standard JSON
	BodySlots                          // the number of slots
)

// BodyCache keeps the encoded route bodies a processor answers with in the
// published snapshots themselves, counted against a byte budget. A body is
// counted when a snapshot's slot takes it and uncounted when the Manager
// replaces or withdraws that snapshot (TopicSnapshot.retireBodies), so Used
// follows what published snapshots hold. The package only stores the
// bytes; it never reads them.
type BodyCache struct {
	budget int64 // < 0 = cache nothing
	used   atomic.Int64
}

// NewBodyCache returns a cache with the given budget in bytes: 0 means
// DefaultBodyCacheBytes, a negative budget caches nothing.
func NewBodyCache(budget int64) *BodyCache {
	if budget == 0 {
		budget = DefaultBodyCacheBytes
	}
	return &BodyCache{budget: budget}
}

// cachedBody is what a snapshot's slot holds: an encoded body and the
// cache that counted it.
type cachedBody struct {
	b     []byte
	owner *BodyCache
}

// retiredBody marks a slot closed by retireBodies.
var retiredBody = &cachedBody{}

// Used is the number of body bytes currently counted.
func (c *BodyCache) Used() int64 { return c.used.Load() }

// Get returns the body cached in slot of s, or nil.
func (c *BodyCache) Get(s *TopicSnapshot, slot BodySlot) []byte {
	if slot >= BodySlots {
		return nil
	}
	if cb := s.bodies[slot].Load(); cb != nil && cb != retiredBody {
		return cb.b
	}
	return nil
}

// Put keeps b in slot of s and counts it, unless the budget has no room,
// the slot already holds a body or s was retired. The caller must not
// modify b afterwards.
func (c *BodyCache) Put(s *TopicSnapshot, slot BodySlot, b []byte) {
	n := int64(len(b))
	if slot >= BodySlots || c.budget < 0 {
		return
	}
	if c.used.Add(n) > c.budget {
		c.used.Add(-n)
		return
	}
	if !s.bodies[slot].CompareAndSwap(nil, &cachedBody{b: b, owner: c}) {
		c.used.Add(-n) // another lookup cached it first, or s was retired
	}
}

// retireBodies closes the body slots of a replaced or withdrawn snapshot
// and uncounts what they held. Lookups that loaded s earlier may still
// read it, but cannot fill its slots any more, so each counted body is
// uncounted exactly once.
func (s *TopicSnapshot) retireBodies() {
	for i := range s.bodies {
		if cb := s.bodies[i].Swap(retiredBody); cb != nil && cb != retiredBody {
			cb.owner.used.Add(-int64(len(cb.b)))
		}
	}
}
