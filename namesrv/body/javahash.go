package body

import (
	"cmp"
	"math/bits"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// tableKind describes how the bucket count of a Java hash map follows its
// size, which decides the map's iteration order.
type tableKind struct {
	initial    int  // bucket count when created (power of two)
	concurrent bool // ConcurrentHashMap resizes one entry earlier
	presized   bool // new HashMap<>(m) or putAll into an empty HashMap
}

var (
	// hashMapDefault: new HashMap<>() (or HashSet) filled by single puts.
	hashMapDefault = tableKind{initial: 16}
	// hashMapCopy: the copy constructor or putAll into a fresh HashMap
	// (BrokerData copies in routes, BrokerMemberGroup.brokerAddrs).
	hashMapCopy = tableKind{presized: true}
	// concurrentDefault: new ConcurrentHashMap<>() (currIdMap).
	concurrentDefault = tableKind{initial: 16, concurrent: true}
	// brokerAddrTableKind: RouteInfoManager's new ConcurrentHashMap<>(128).
	brokerAddrTableKind = tableKind{initial: 256, concurrent: true}
	// clusterAddrTableKind: RouteInfoManager's new ConcurrentHashMap<>(32).
	clusterAddrTableKind = tableKind{initial: 64, concurrent: true}
)

// maxTable is Java's MAXIMUM_CAPACITY.
const maxTable = 1 << 30

// buckets returns the table size of a map of this kind holding n entries
// (Java 8 sizing rules).
func (k tableKind) buckets(n int) int {
	if k.presized {
		return tableSizeFor(int(float32(n)/0.75 + 1))
	}
	t := max(k.initial, 1)
	for t < maxTable && (n > t*3/4 || k.concurrent && n == t*3/4) {
		t <<= 1
	}
	return t
}

// tableSizeFor is HashMap.tableSizeFor: the next power of two >= c.
func tableSizeFor(c int) int {
	if c <= 1 {
		return 1
	}
	return min(1<<bits.Len(uint(c-1)), maxTable)
}

// spread is HashMap.hash's mixing of the high half into the low half.
func spread(h uint32) uint32 { return h ^ h>>16 }

// javaStringHash returns java.lang.String.hashCode of s read as UTF-8.
func javaStringHash(s string) uint32 {
	var h uint32
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return javaStringHashSlow(s)
		}
		h = 31*h + uint32(s[i])
	}
	return h
}

// javaStringHashSlow hashes the UTF-16 code units of a non-ASCII string.
func javaStringHashSlow(s string) uint32 {
	var h uint32
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			h = 31*(31*h+uint32(hi)) + uint32(lo)
			continue
		}
		h = 31*h + uint32(r)
	}
	return h
}

// javaLongHash is Long.hashCode.
func javaLongHash(v int64) uint32 { return uint32(v ^ int64(uint64(v)>>32)) }

// javaIntHash is Integer.hashCode.
func javaIntHash(v int32) uint32 { return uint32(v) }

// bucketed is a key with its bucket index, for sorting into hash order.
type bucketed[K any] struct {
	bucket uint32
	key    K
}

// sortHashOrder sorts keys into the iteration order of a Java hash map of
// kind k: ascending bucket index, keys sharing a bucket ordered by less
// (Java keeps insertion order there, which is unknown here).
func sortHashOrder[K any](keys []K, k tableKind, hash func(K) uint32, less func(a, b K) int) {
	mask := uint32(k.buckets(len(keys)) - 1)
	tmp := make([]bucketed[K], len(keys))
	for i, key := range keys {
		tmp[i] = bucketed[K]{spread(hash(key)) & mask, key}
	}
	slices.SortFunc(tmp, func(a, b bucketed[K]) int {
		return cmp.Or(cmp.Compare(a.bucket, b.bucket), less(a.key, b.key))
	})
	for i := range tmp {
		keys[i] = tmp[i].key
	}
}

// SortJavaHashOrder sorts keys in place into the iteration order of a Java
// HashMap/HashSet (concurrent=false) or ConcurrentHashMap (concurrent=true)
// created with initialTable buckets (16 for the no-argument constructors;
// new ConcurrentHashMap<>(c) starts with tableSizeFor(c*1.5+1)) and grown
// by single insertions. Keys that share a bucket come out sorted, since
// their insertion order is unknown.
func SortJavaHashOrder(keys []string, initialTable int, concurrent bool) {
	k := tableKind{initial: tableSizeFor(initialTable), concurrent: concurrent}
	sortHashOrder(keys, k, javaStringHash, javaCompare)
}

// javaCompare is String.compareTo on the UTF-16 forms of two UTF-8 strings.
func javaCompare(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) || i == len(b) {
		return cmp.Compare(len(a), len(b))
	}
	if a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
		return cmp.Compare(a[i], b[i])
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	return cmp.Or(compareUTF16(ra, rb), cmp.Compare(a[i], b[i]))
}

// compareUTF16 orders two distinct runes by their UTF-16 code units.
func compareUTF16(ra, rb rune) int {
	ha, la := utf16Units(ra)
	hb, lb := utf16Units(rb)
	return cmp.Or(cmp.Compare(ha, hb), cmp.Compare(la, lb))
}

// utf16Units returns the first and second UTF-16 code unit of r (0 if none).
func utf16Units(r rune) (rune, rune) {
	if r >= 0x10000 {
		return utf16.EncodeRune(r)
	}
	return r, 0
}

// sortedStringKeys returns the keys of m in the order flavour f writes them:
// Java HashMap order of kind k, or sorted for Standard.
func sortedStringKeys[V any](m map[string]V, f Flavour, k tableKind) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	if f == Standard {
		slices.SortFunc(keys, javaCompare)
	} else {
		sortHashOrder(keys, k, javaStringHash, javaCompare)
	}
	return keys
}

// sortedLongKeys returns the keys of a Long-keyed map in write order,
// using buf's storage when it is large enough.
func sortedLongKeys(m map[int64]string, f Flavour, k tableKind, buf []int64) []int64 {
	keys := buf[:0]
	for key := range m {
		keys = append(keys, key)
	}
	sortNumberKeys(keys, f, k, javaLongHash)
	return keys
}

// sortedIntKeys returns the keys of an Integer-keyed map in write order.
func sortedIntKeys(m map[int32]int32, f Flavour, k tableKind, buf []int32) []int32 {
	keys := buf[:0]
	for key := range m {
		keys = append(keys, key)
	}
	sortNumberKeys(keys, f, k, javaIntHash)
	return keys
}

// sortNumberKeys sorts numeric map keys numerically (Standard) or into
// Java hash order, recomputing the cheap hash instead of allocating.
func sortNumberKeys[K int32 | int64](keys []K, f Flavour, k tableKind, hash func(K) uint32) {
	if f == Standard {
		slices.Sort(keys)
		return
	}
	mask := uint32(k.buckets(len(keys)) - 1)
	slices.SortFunc(keys, func(a, b K) int {
		ba, bb := spread(hash(a))&mask, spread(hash(b))&mask
		return cmp.Or(cmp.Compare(ba, bb), cmp.Compare(a, b))
	})
}
