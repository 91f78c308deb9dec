package fastjson

// QuoteNumericKeys rewrites fastjson's unquoted numeric object keys
// ({1:"a"}), which its default serializer writes for Integer and Long map
// keys, into standard JSON ({"1":"a"}) that encoding/json reads; everything
// else, strings included, is copied unchanged.
func QuoteNumericKeys(in []byte) []byte {
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
