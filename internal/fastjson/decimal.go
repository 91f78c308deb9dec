package fastjson

// ParseDecimal parses [+-]digits (at most 19 digits) into an int64 without
// allocating; ok is false for anything else or a value out of range. Both
// scanners use it as the fast path of an integer token (fastjson's
// JSONLexer.scanLong / scanInt accept the same plain form).
func ParseDecimal(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		return -int64(u), u <= 1<<63
	}
	return int64(u), u < 1<<63
}
