package namesrv

import (
	"sync"
	"sync/atomic"

	"github.com/rmqgo/nameserver/namesrv/body"
	"github.com/rmqgo/nameserver/namesrv/route"
)

// DefaultRouteCacheBytes is the default budget for encoded route bodies
// kept in topic snapshots: about 70,000 bodies of four broker groups.
// Lookups of topics beyond it encode per request.
const DefaultRouteCacheBytes = 64 << 20

// maxPooledBuf is the largest encode buffer returned to the pool.
const maxPooledBuf = 64 << 10

// encodeBufs recycles the scratch buffers route bodies are encoded into
// before they are copied out at their exact size.
var encodeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// routeCache counts the bytes of the route bodies cached in snapshot slots
// against a budget. A body is counted when a slot takes it and uncounted
// when the snapshot is retired (retireRouteBodies), so the counter follows
// what published snapshots hold. The zero value uses the default budget.
type routeCache struct {
	budget int64 // 0 = DefaultRouteCacheBytes; < 0 = cache nothing
	used   atomic.Int64
}

// cachedBody is what a snapshot slot holds: an exact-size encoded body and
// the cache that counted it.
type cachedBody struct {
	b     []byte
	owner *routeCache
}

func (c *routeCache) limit() int64 {
	if c.budget == 0 {
		return DefaultRouteCacheBytes
	}
	return c.budget
}

// Used is the number of body bytes currently counted.
func (c *routeCache) Used() int64 { return c.used.Load() }

// body returns the snapshot's cached encoding of r in slot, encoding and
// caching it when the budget allows; over budget it encodes per request.
func (c *routeCache) body(snap *route.TopicSnapshot, slot int, r *route.TopicRouteData, f body.Flavour) []byte {
	if cb, ok := snap.Cached(slot).(*cachedBody); ok {
		return cb.b
	}
	b := encodeRoute(r, f)
	n := int64(len(b))
	if c.used.Add(n) > c.limit() {
		c.used.Add(-n)
		return b
	}
	if !snap.CacheIfEmpty(slot, &cachedBody{b: b, owner: c}) {
		c.used.Add(-n) // another lookup cached it first, or the snapshot was retired
	}
	return b
}

// encodeRoute encodes r into a pooled scratch buffer and returns an
// exact-size copy (appending from nil would leave up to half of the
// capacity unused).
func encodeRoute(r *route.TopicRouteData, f body.Flavour) []byte {
	bp := encodeBufs.Get().(*[]byte)
	buf := body.AppendTopicRouteData((*bp)[:0], r, f)
	out := make([]byte, len(buf))
	copy(out, buf)
	if cap(buf) <= maxPooledBuf {
		*bp = buf
		encodeBufs.Put(bp)
	}
	return out
}

// retireRouteBodies is the route manager's OnRetire hook: it closes the
// cache slots of a replaced or withdrawn snapshot and uncounts what they
// held.
func retireRouteBodies(s *route.TopicSnapshot) {
	for i := range route.CacheSlots {
		if cb, ok := s.RetireCached(i).(*cachedBody); ok {
			cb.owner.used.Add(-int64(len(cb.b)))
		}
	}
}
