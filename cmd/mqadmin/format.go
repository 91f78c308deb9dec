package main

import (
	"bytes"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// prettyFastjson re-indents compact fastjson text the way fastjson's
// PrettyFormat writes it: one member or element per line, tab indents, no
// space after ':', empty objects and arrays kept as {} and []. It works
// on tokens only, so fastjson's unquoted numeric keys pass through.
func prettyFastjson(src []byte) []byte {
	var out bytes.Buffer
	depth, inStr, esc := 0, false, false
	newline := func() {
		out.WriteByte('\n')
		out.WriteString(strings.Repeat("\t", depth))
	}
	for i := 0; i < len(src); i++ {
		ch := src[i]
		if inStr {
			out.WriteByte(ch)
			esc, inStr = !esc && ch == '\\', esc || ch != '"'
			continue
		}
		switch ch {
		case '"':
			inStr = true
			out.WriteByte(ch)
		case '{', '[':
			out.WriteByte(ch)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				out.WriteByte(src[i+1])
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			out.WriteByte(ch)
		case ',':
			out.WriteByte(ch)
			newline()
		default:
			out.WriteByte(ch)
		}
	}
	return out.Bytes()
}

// javaLongMap renders a broker address map like Java's HashMap.toString
// for small ids: "{0=a, 1=b}" in ascending id order.
func javaLongMap(m map[int64]string) string {
	parts := make([]string, 0, len(m))
	for _, id := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, strconv.FormatInt(id, 10)+"="+m[id])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// frontStringAtLeast is Java's UtilAll.frontStringAtLeast: s cut to size.
func frontStringAtLeast(s string, size int) string {
	if len(s) > size {
		return s[:size]
	}
	return s
}

// itoa formats an int32 for %s columns.
func itoa(n int32) string { return strconv.FormatInt(int64(n), 10) }
