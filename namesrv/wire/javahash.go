package wire

import (
	"cmp"
	"slices"

	"github.com/rmqgo/nameserver/internal/javahash"
)

// sortedStringKeys returns the keys of m in the order flavour f writes them:
// Java HashMap order of kind k, or sorted for Standard.
func sortedStringKeys[V any](m map[string]V, f Flavour, k javahash.Kind) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	if f == Standard {
		slices.SortFunc(keys, javahash.Compare)
	} else {
		javahash.Sort(keys, k, javahash.StringHash, javahash.Compare)
	}
	return keys
}

// sortedLongKeys returns the keys of a Long-keyed map in write order,
// using buf's storage when it is large enough.
func sortedLongKeys(m map[int64]string, f Flavour, k javahash.Kind, buf []int64) []int64 {
	keys := buf[:0]
	for key := range m {
		keys = append(keys, key)
	}
	sortNumberKeys(keys, f, k, javahash.LongHash)
	return keys
}

// sortedIntKeys returns the keys of an Integer-keyed map in write order.
func sortedIntKeys(m map[int32]int32, f Flavour, k javahash.Kind, buf []int32) []int32 {
	keys := buf[:0]
	for key := range m {
		keys = append(keys, key)
	}
	sortNumberKeys(keys, f, k, javahash.IntHash)
	return keys
}

// sortNumberKeys sorts numeric map keys numerically (Standard) or into
// Java hash order, recomputing the cheap hash instead of allocating.
func sortNumberKeys[K int32 | int64](keys []K, f Flavour, k javahash.Kind, hash func(K) uint32) {
	if f == Standard {
		slices.Sort(keys)
		return
	}
	mask := uint32(k.Buckets(len(keys)) - 1)
	slices.SortFunc(keys, func(a, b K) int {
		ba, bb := javahash.Spread(hash(a))&mask, javahash.Spread(hash(b))&mask
		return cmp.Or(cmp.Compare(ba, bb), cmp.Compare(a, b))
	})
}
