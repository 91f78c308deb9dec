package route

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

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
// published snapshots themselves, counted against a byte budget. Equal
// bodies are held once: topics on the same broker groups with the same
// queues have byte-identical routes (the topic name is not in the body),
// so a cluster's many topics share a few bodies. A distinct body is counted
// when a first slot takes it and uncounted when the Manager has replaced or
// withdrawn (TopicSnapshot.retireBodies) the last snapshot holding it, so
// Used follows the distinct bodies published snapshots hold. The package
// only stores the bytes; it never reads them.
type BodyCache struct {
	budget int64 // < 0 = cache nothing
	used   atomic.Int64
	mu     sync.Mutex               // guards bodies, routes and every sharedBody.refs
	bodies map[string]*sharedBody   // the distinct bodies held, by content
	routes map[routeKey]*sharedBody // the same, by the route they encode (when it has a key)
}

// sharedBody is one distinct body and the number of slots holding it.
type sharedBody struct {
	b     []byte
	refs  int
	route routeKey // zero when the body was put for a route without a key
}

// keyQueues is the most queue data a routeKey holds.
const keyQueues = 4

// routeKey identifies what a slot's body encodes without encoding it: the
// published BrokerData list (shared by every route on the same broker
// groups, immutable, with its filter view), the queue data, and the slot
// (view and flavour). Routes with static-topic mappings or more than
// keyQueues queue data have no key.
type routeKey struct {
	brokers *wire.BrokerData
	nb, nq  int
	queues  [keyQueues]wire.QueueData
	slot    BodySlot
}

// keyOf returns the routeKey of slot of s; ok is false when it has none.
func keyOf(s *TopicSnapshot, slot BodySlot) (k routeKey, ok bool) {
	r := s.Route
	if slot >= BodyActingDefault {
		r = s.ActingMaster
	}
	if r == nil || len(r.BrokerDatas) == 0 || len(r.QueueDatas) > keyQueues || r.TopicQueueMappingByBroker != nil {
		return k, false
	}
	k = routeKey{brokers: &r.BrokerDatas[0], nb: len(r.BrokerDatas), nq: len(r.QueueDatas), slot: slot}
	copy(k.queues[:], r.QueueDatas)
	return k, true
}

// key is the content of b as a map key, without a copy: cached bodies are
// never modified.
func key(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// NewBodyCache returns a cache with the given budget in bytes: 0 means
// DefaultBodyCacheBytes, a negative budget caches nothing.
func NewBodyCache(budget int64) *BodyCache {
	if budget == 0 {
		budget = DefaultBodyCacheBytes
	}
	return &BodyCache{budget: budget, bodies: map[string]*sharedBody{}, routes: map[routeKey]*sharedBody{}}
}

// cachedBody is what a snapshot's slot holds: an encoded body and the
// cache that counted it.
type cachedBody struct {
	body  *sharedBody
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
		return cb.body.b
	}
	return nil
}

// Shared fills slot of s with the body already held for an equal route
// (the same BrokerData list and queue data, see routeKey) and returns it,
// so that the caller need not encode; nil when there is none.
func (c *BodyCache) Shared(s *TopicSnapshot, slot BodySlot) []byte {
	k, ok := keyOf(s, slot)
	if !ok || c.budget < 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sb := c.routes[k]
	if sb == nil || !s.bodies[slot].CompareAndSwap(nil, &cachedBody{body: sb, owner: c}) {
		return nil
	}
	sb.refs++
	return sb.b
}

// Put keeps b, or the equal body already held, in slot of s, unless the
// slot already holds a body, s was retired, or b is new and the budget has
// no room for it. The caller must not modify b afterwards; Get returns what
// the slot holds.
func (c *BodyCache) Put(s *TopicSnapshot, slot BodySlot, b []byte) {
	if slot >= BodySlots || c.budget < 0 || len(b) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sb := c.bodies[key(b)]
	if sb == nil {
		if c.used.Load()+int64(len(b)) > c.budget {
			return
		}
		sb = &sharedBody{b: b}
	}
	if !s.bodies[slot].CompareAndSwap(nil, &cachedBody{body: sb, owner: c}) {
		return // another lookup cached it first, or s was retired
	}
	if sb.refs == 0 {
		c.bodies[key(sb.b)] = sb
		c.used.Add(int64(len(sb.b)))
	}
	if k, ok := keyOf(s, slot); ok && sb.route == (routeKey{}) && c.routes[k] == nil {
		sb.route = k
		c.routes[k] = sb
	}
	sb.refs++
}

// release drops one slot's hold on sb, uncounting it with the last.
func (c *BodyCache) release(sb *sharedBody) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sb.refs--; sb.refs == 0 {
		delete(c.bodies, key(sb.b))
		if c.routes[sb.route] == sb {
			delete(c.routes, sb.route)
		}
		c.used.Add(-int64(len(sb.b)))
	}
}

// retireBodies closes the body slots of a replaced or withdrawn snapshot
// and uncounts what they held. Lookups that loaded s earlier may still
// read it, but cannot fill its slots any more, so each counted body is
// uncounted exactly once.
func (s *TopicSnapshot) retireBodies() {
	for i := range s.bodies {
		if cb := s.bodies[i].Swap(retiredBody); cb != nil && cb != retiredBody {
			cb.owner.release(cb.body)
		}
	}
}
