package remoting

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
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
		dst = appendJSONString(dst, c.Language)
	}
	dst = append(dst, `,"opaque":`...)
	dst = strconv.AppendInt(dst, int64(c.Opaque), 10)
	if c.Remark != "" {
		dst = append(dst, `,"remark":`...)
		dst = appendJSONString(dst, c.Remark)
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
	dst = appendJSONString(dst, k)
	dst = append(dst, ':')
	return appendJSONString(dst, v)
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

// jsonNeedsEscape marks ASCII bytes fastjson escapes inside strings.
var jsonNeedsEscape = func() (t [256]bool) {
	for i := 0; i < 0x20; i++ {
		t[i] = true
	}
	t['"'], t['\\'], t[0x7F] = true, true, true
	t[0xC2], t[0xE2] = true, true // may start U+0080..U+009F, U+2028/9
	return t
}()

// appendJSONString appends s quoted and escaped exactly as fastjson's
// SerializeWriter does with default features: \" \\ \b \t \n \f \r as
// two-character escapes; other controls, U+007F..U+009F, U+2028 and U+2029
// as \u00XX with upper-case hex; '/' and everything else literal. Invalid
// UTF-8 is copied as is.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if !jsonNeedsEscape[s[i]] {
			continue
		}
		esc, n := jsonEscape(s, i)
		if esc == "" {
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, esc...)
		i += n - 1
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// jsonEscape returns the escape for the character starting at s[i] and its
// length in bytes, or "" when it is written literally.
func jsonEscape(s string, i int) (string, int) {
	b := s[i]
	switch b {
	case '"':
		return `\"`, 1
	case '\\':
		return `\\`, 1
	case '\b':
		return `\b`, 1
	case '\t':
		return `\t`, 1
	case '\n':
		return `\n`, 1
	case '\f':
		return `\f`, 1
	case '\r':
		return `\r`, 1
	case 0xC2, 0xE2:
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r >= 0x80 && r <= 0x9F) || r == 0x2028 || r == 0x2029 {
			return unicodeEscape(r), n
		}
		return "", 1
	}
	return unicodeEscape(rune(b)), 1
}

// lowEscapes holds \u00XX for U+0000..U+009F.
var lowEscapes = func() (t [0xA0]string) {
	const hex = "0123456789ABCDEF"
	for i := range t {
		t[i] = string([]byte{'\\', 'u', '0', '0', hex[i>>4], hex[i&15]})
	}
	return t
}()

func unicodeEscape(r rune) string {
	switch {
	case r == 0x2028:
		return `\u2028`
	case r == 0x2029:
		return `\u2029`
	}
	return lowEscapes[r]
}
