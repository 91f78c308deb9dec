// Package javahash reproduces the iteration order of Java's HashMap,
// HashSet and ConcurrentHashMap, so that bodies and lists can come out in
// the order the Java NameServer writes them. It knows nothing of RocketMQ
// beyond the initial sizes of a few named tables.
package javahash

import (
	"cmp"
	"math/bits"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind describes how the bucket count of a Java hash map follows its
// size, which decides the map's iteration order.
type Kind struct {
	Initial    int  // bucket count when created (power of two)
	Concurrent bool // ConcurrentHashMap resizes one entry earlier
	Presized   bool // new HashMap<>(m) or putAll into an empty HashMap
}

var (
	// HashMapDefault: new HashMap<>() (or HashSet) filled by single puts.
	HashMapDefault = Kind{Initial: 16}
	// HashMapCopy: the copy constructor or putAll into a fresh HashMap
	// (BrokerData copies in routes, BrokerMemberGroup.brokerAddrs).
	HashMapCopy = Kind{Presized: true}
	// ConcurrentDefault: new ConcurrentHashMap<>() (currIdMap).
	ConcurrentDefault = Kind{Initial: 16, Concurrent: true}
	// BrokerAddrTable: RouteInfoManager's new ConcurrentHashMap<>(128).
	BrokerAddrTable = Kind{Initial: 256, Concurrent: true}
	// ClusterAddrTable: RouteInfoManager's new ConcurrentHashMap<>(32).
	ClusterAddrTable = Kind{Initial: 64, Concurrent: true}
)

// maxTable is Java's MAXIMUM_CAPACITY.
const maxTable = 1 << 30

// Buckets returns the table size of a map of this kind holding n entries
// (Java 8 sizing rules).
func (k Kind) Buckets(n int) int {
	if k.Presized {
		return TableSizeFor(int(float32(n)/0.75 + 1))
	}
	t := max(k.Initial, 1)
	for t < maxTable && (n > t*3/4 || k.Concurrent && n == t*3/4) {
		t <<= 1
	}
	return t
}

// TableSizeFor is HashMap.TableSizeFor: the next power of two >= c.
func TableSizeFor(c int) int {
	if c <= 1 {
		return 1
	}
	return min(1<<bits.Len(uint(c-1)), maxTable)
}

// Spread is HashMap.hash's mixing of the high half into the low half.
func Spread(h uint32) uint32 { return h ^ h>>16 }

// StringHash returns java.lang.String.hashCode of s read as UTF-8. ASCII
// is hashed four bytes a step (h*31^4 + c0*31^3 + c1*31^2 + c2*31 + c3),
// which shortens the chain of dependent multiplications.
func StringHash(s string) uint32 {
	var h uint32
	i := 0
	for ; i+4 <= len(s); i += 4 {
		c0, c1, c2, c3 := s[i], s[i+1], s[i+2], s[i+3]
		if c0|c1|c2|c3 >= utf8.RuneSelf {
			return stringHashSlow(s)
		}
		h = h*923521 + uint32(c0)*29791 + uint32(c1)*961 + uint32(c2)*31 + uint32(c3)
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return stringHashSlow(s)
		}
		h = 31*h + uint32(s[i])
	}
	return h
}

// stringHashSlow hashes the UTF-16 code units of a non-ASCII string.
func stringHashSlow(s string) uint32 {
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

// LongHash is Long.hashCode.
func LongHash(v int64) uint32 { return uint32(v ^ int64(uint64(v)>>32)) }

// IntHash is Integer.hashCode.
func IntHash(v int32) uint32 { return uint32(v) }

// bucketed is a key with its bucket index, for sorting into hash order.
type bucketed[K any] struct {
	bucket uint32
	key    K
}

// Sort sorts keys into the iteration order of a Java hash map of
// kind k: ascending bucket index, keys sharing a bucket ordered by less
// (Java keeps insertion order there, which is unknown here).
func Sort[K any](keys []K, k Kind, hash func(K) uint32, less func(a, b K) int) {
	mask := uint32(k.Buckets(len(keys)) - 1)
	tmp := make([]bucketed[K], len(keys))
	for i, key := range keys {
		tmp[i] = bucketed[K]{Spread(hash(key)) & mask, key}
	}
	slices.SortFunc(tmp, func(a, b bucketed[K]) int {
		return cmp.Or(cmp.Compare(a.bucket, b.bucket), less(a.key, b.key))
	})
	for i := range tmp {
		keys[i] = tmp[i].key
	}
}

// SortStrings sorts keys in place into the iteration order of a Java
// HashMap/HashSet (concurrent=false) or ConcurrentHashMap (concurrent=true)
// created with initialTable buckets (16 for the no-argument constructors;
// new ConcurrentHashMap<>(c) starts with TableSizeFor(c*1.5+1)) and grown
// by single insertions. Keys that share a bucket come out sorted, since
// their insertion order is unknown.
func SortStrings(keys []string, initialTable int, concurrent bool) {
	k := Kind{Initial: TableSizeFor(initialTable), Concurrent: concurrent}
	Sort(keys, k, StringHash, Compare)
}

// Compare is String.compareTo on the UTF-16 forms of two UTF-8 strings.
func Compare(a, b string) int {
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
