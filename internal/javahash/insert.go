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
// reversing them. For it the puts and resizes are replayed
// (ConcurrentHashMap, which also follows its tree bins).
func InsertionOrder[K any](keys []K, k Kind, hash func(K) uint32) []K {
	if !k.Concurrent {
		return stableByBucket(keys, k.Buckets(len(keys)), hash)
	}
	table := k.Initial
	if k.Presized || table < 1 {
		table = k.Buckets(len(keys))
	}
	c := NewConcurrentHashMap(table)
	for _, key := range keys {
		c.Put(hash(key))
	}
	out := make([]K, 0, len(keys))
	for _, i := range c.Order(make([]int32, 0, len(keys))) {
		out = append(out, keys[i])
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
