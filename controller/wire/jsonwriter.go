package wire

import (
	"strconv"

	"github.com/rmqgo/nameserver/internal/fastjson"
)

// objWriter appends one JSON object; the caller writes keys in the order
// fastjson would (alphabetical).
type objWriter struct {
	b []byte
	n int
}

func newObj(b []byte) *objWriter { return &objWriter{b: append(b, '{')} }

func (w *objWriter) key(k string) {
	if w.n > 0 {
		w.b = append(w.b, ',')
	}
	w.n++
	w.b = fastjson.AppendString(w.b, k, fastjson.Default)
	w.b = append(w.b, ':')
}

func (w *objWriter) str(k, v string) {
	w.key(k)
	w.b = fastjson.AppendString(w.b, v, fastjson.Default)
}

func (w *objWriter) int(k string, v int64) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
}

func (w *objWriter) end() []byte { return append(w.b, '}') }

// quoteNumericKeys rewrites fastjson's unquoted numeric object keys
// ({1:"a"}) into standard JSON ({"1":"a"}); everything else is copied.
func quoteNumericKeys(in []byte) []byte {
	out := make([]byte, 0, len(in)+8)
	var stack []byte // '{' or '['
	expectKey := false
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case c == '"':
			j := skipString(in, i)
			out = append(out, in[i:j]...)
			i = j - 1
			expectKey = false
		case c == '{' || c == '[':
			stack = append(stack, c)
			out = append(out, c)
			expectKey = c == '{'
		case c == '}' || c == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			out = append(out, c)
			expectKey = false
		case c == ',':
			out = append(out, c)
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
		case expectKey && (c == '-' || (c >= '0' && c <= '9')):
			j := i
			for j < len(in) && isNumberByte(in[j]) {
				j++
			}
			out = append(append(append(out, '"'), in[i:j]...), '"')
			i = j - 1
			expectKey = false
		default:
			out = append(out, c)
		}
	}
	return out
}

// skipString returns the index just past the string starting at in[i] == '"'.
func skipString(in []byte, i int) int {
	for j := i + 1; j < len(in); j++ {
		switch in[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(in)
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}
