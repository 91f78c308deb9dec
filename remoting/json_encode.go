package remoting

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rmqgo/nameserver/internal/fastjson"
)

// appendJSONHeader appends c's header as fastjson 1.2.83 writes a
// RemotingCommand with default features: keys sorted, nulls omitted,
// compact, enums by name.
func appendJSONHeader(dst []byte, c *Command) []byte {
	dst = append(dst, `{"code":`...)
	dst = strconv.AppendInt(dst, int64(c.Code), 10)
	if c.ExtFields != nil {
		dst = append(dst, `,"extFields":`...)
		dst = appendJSONExt(dst, c.ExtFields)
	}
	dst = append(dst, `,"flag":`...)
	dst = strconv.AppendInt(dst, int64(c.Flag), 10)
	if c.Language != "" {
		dst = append(dst, `,"language":`...)
		dst = fastjson.AppendString(dst, c.Language, fastjson.Default)
	}
	dst = append(dst, `,"opaque":`...)
	dst = strconv.AppendInt(dst, int64(c.Opaque), 10)
	if c.Remark != "" {
		dst = append(dst, `,"remark":`...)
		dst = fastjson.AppendString(dst, c.Remark, fastjson.Default)
	}
	dst = append(dst, `,"serializeTypeCurrentRPC":"JSON","version":`...)
	dst = strconv.AppendInt(dst, int64(c.Version), 10)
	return append(dst, '}')
}

// appendJSONExt appends the extFields object with its keys in the order a
// java.util.HashMap would iterate them (see extOrder).
func appendJSONExt(dst []byte, m map[string]string) []byte {
	dst = append(dst, '{')
	if len(m) == 1 {
		for k, v := range m {
			dst = appendJSONPair(dst, k, v)
		}
		return append(dst, '}')
	}
	var arr [16]string
	for i, k := range extOrder(arr[:0], m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONPair(dst, k, m[k])
	}
	return append(dst, '}')
}

func appendJSONPair(dst []byte, k, v string) []byte {
	dst = fastjson.AppendString(dst, k, fastjson.Default)
	dst = append(dst, ':')
	return fastjson.AppendString(dst, v, fastjson.Default)
}

// extOrder appends m's keys to keys in java.util.HashMap iteration order for
// a map built by `new HashMap<>()` and filled with len(m) entries: ascending
// bucket index of the spread String.hashCode. Keys sharing a bucket (whose
// relative order is their unknown insertion order) are sorted. Matching
// Java's order lets responses reproduce Java's bytes exactly.
func extOrder(keys []string, m map[string]string) []string {
	type entry struct {
		bucket uint32
		key    string
	}
	var arr [16]entry
	entries := arr[:0]
	mask := uint32(hashMapCapacity(len(m)) - 1)
	for k := range m {
		entries = append(entries, entry{javaBucket(k, mask), k})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if a.bucket != b.bucket {
			return int(a.bucket) - int(b.bucket)
		}
		return strings.Compare(a.key, b.key)
	})
	for _, e := range entries {
		keys = append(keys, e.key)
	}
	return keys
}

// hashMapCapacity is the table size of a default HashMap holding n entries
// (initial 16, load factor 0.75, doubling).
func hashMapCapacity(n int) int {
	c := 16
	for n > c*3/4 {
		c *= 2
	}
	return c
}

// javaBucket is HashMap's bucket index of key: (h ^ h>>>16) & mask, with h
// Java's String.hashCode over UTF-16 code units.
func javaBucket(key string, mask uint32) uint32 {
	var h uint32
	for _, r := range key {
		if r >= 0x10000 {
			r1, r2 := utf16Surrogates(r)
			h = 31*h + uint32(r1)
			r = r2
		}
		h = 31*h + uint32(r)
	}
	return (h ^ h>>16) & mask
}

func utf16Surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}
