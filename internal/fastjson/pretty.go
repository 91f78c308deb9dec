package fastjson

import (
	"bytes"
	"strings"
)

// Pretty re-indents compact fastjson text the way JSON.toJSONString(obj,
// true) (SerializerFeature.PrettyFormat) writes it: one member or element
// per line, tab indents, no space after ':', empty objects and arrays kept
// as {} and []. It works on tokens only, so unquoted numeric keys pass
// through; unbalanced input is re-indented as far as it goes, never a panic.
func Pretty(src []byte) []byte {
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
			depth = max(depth-1, 0) // unbalanced input stays unindented
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
