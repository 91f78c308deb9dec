package javahash

import (
	"cmp"
	"slices"
)

// InsertionOrder returns keys, distinct and given in the order they were
// put into a Java hash map of kind k, in that map's iteration order.
//
// A HashMap keeps insertion order inside a bucket through every resize
// (HashMap.resize splits a bin into its low and high halves in order), so
// its order is the keys stably sorted by bucket. A ConcurrentHashMap does
// not: ConcurrentHashMap.transfer keeps the trailing run of a bin's nodes
// that move to the same half and prepends the nodes before it one by one,
// reversing them. For it the puts and resizes are replayed. Bins that
// Java turns into trees (eight or more keys in one bucket) are kept as
// lists here.
func InsertionOrder[K any](keys []K, k Kind, hash func(K) uint32) []K {
	if !k.Concurrent {
		return stableByBucket(keys, k.Buckets(len(keys)), hash)
	}
	table := k.Initial
	if k.Presized || table < 1 {
		table = k.Buckets(len(keys))
	}
	c := chm{bins: make([][]int, table), spread: make([]uint32, len(keys))}
	for i, key := range keys {
		c.spread[i] = Spread(hash(key))
		c.put(i)
	}
	out := make([]K, 0, len(keys))
	for _, bin := range c.bins {
		for _, i := range bin {
			out = append(out, keys[i])
		}
	}
	return out
}

// stableByBucket sorts a copy of keys by bucket, keeping their order
// inside a bucket.
func stableByBucket[K any](keys []K, buckets int, hash func(K) uint32) []K {
	mask := uint32(buckets - 1)
	tmp := make([]bucketed[K], len(keys))
	for i, key := range keys {
		tmp[i] = bucketed[K]{Spread(hash(key)) & mask, key}
	}
	slices.SortStableFunc(tmp, func(a, b bucketed[K]) int { return cmp.Compare(a.bucket, b.bucket) })
	out := make([]K, len(keys))
	for i := range tmp {
		out[i] = tmp[i].key
	}
	return out
}

// chm replays a ConcurrentHashMap's bins: each bin lists key indexes in
// the map's order.
type chm struct {
	bins   [][]int
	spread []uint32 // Spread(hash) by key index
	count  int
}

// put appends key i to the tail of its bin (putVal) and resizes while the
// count has reached sizeCtl, three quarters of the table (addCount).
func (c *chm) put(i int) {
	n := len(c.bins)
	b := int(c.spread[i] & uint32(n-1))
	c.bins[b] = append(c.bins[b], i)
	c.count++
	for n = len(c.bins); n < maxTable && c.count >= n-n>>2; n = len(c.bins) {
		c.transfer()
	}
}

// transfer doubles the table as ConcurrentHashMap.transfer moves a list
// bin: the last run of nodes going to the same half stays in order and the
// nodes before it are prepended to their half, so they end up reversed.
func (c *chm) transfer() {
	n := len(c.bins)
	next := make([][]int, 2*n)
	for b, bin := range c.bins {
		if len(bin) == 0 {
			continue
		}
		high := func(i int) bool { return c.spread[i]&uint32(n) != 0 }
		last := len(bin) - 1
		for last > 0 && high(bin[last-1]) == high(bin[len(bin)-1]) {
			last--
		}
		var lo, hi []int
		for j := last - 1; j >= 0; j-- {
			if high(bin[j]) {
				hi = append(hi, bin[j])
			} else {
				lo = append(lo, bin[j])
			}
		}
		if high(bin[last]) {
			hi = append(hi, bin[last:]...)
		} else {
			lo = append(lo, bin[last:]...)
		}
		next[b], next[b+n] = lo, hi
	}
	c.bins = next
}
