package fastjson

import (
	"strconv"
	"unicode/utf8"
)

// Flavour selects which of fastjson's two serializer dialects is written.
type Flavour int

const (
	// Default is JSON.toJSONString with default features: numeric map keys
	// unquoted, non-ASCII and "/" written raw.
	Default Flavour = iota
	// Standard is BrowserCompatible|QuoteFieldNames|SkipTransientField|
	// MapSortField: every map key quoted, non-ASCII as \uXXXX (uppercase
	// hex), "/" as "\/", longs beyond ±2^53-1 quoted.
	Standard
)

// MaxSafeLong is the largest magnitude fastjson's BrowserCompatible mode
// writes as a bare number.
const MaxSafeLong = 9007199254740991

const hexDigits = "0123456789ABCDEF"

// escapeTables[f][c] is 0 when ASCII byte c is written raw in flavour f,
// 'u' when it becomes \u00XX, or the letter that follows the backslash.
var escapeTables = [2][utf8.RuneSelf]byte{
	buildEscapeTable(false),
	buildEscapeTable(true),
}

// buildEscapeTable returns the ASCII escape table of one flavour, after
// fastjson's IOUtils.specicalFlags_doubleQuotes and BrowserCompatible rules.
func buildEscapeTable(browser bool) [utf8.RuneSelf]byte {
	var t [utf8.RuneSelf]byte
	for c := 0; c < 0x20; c++ {
		t[c] = 'u'
	}
	t['\b'], t['\t'], t['\n'], t['\f'], t['\r'] = 'b', 't', 'n', 'f', 'r'
	t['"'], t['\\'], t[0x7F] = '"', '\\', 'u'
	if browser {
		t['/'] = '/'
	}
	return t
}

// AppendString appends s as a quoted JSON string escaped like fastjson's
// SerializeWriter does in flavour f: \" \\ \b \t \n \f \r as two-character
// escapes, other controls and U+007F as \u00XX (uppercase hex); in Default
// also U+0080..U+009F, U+2028 and U+2029, everything else raw; in Standard
// "/" as \/ and all non-ASCII as \uXXXX. Invalid UTF-8 becomes U+FFFD, as
// it would after Java decoded the bytes. It allocates only to grow dst.
func AppendString(dst []byte, s string, f Flavour) []byte {
	table := &escapeTables[f&1]
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if table[c] != 0 {
				dst = append(dst, s[start:i-1]...)
				dst = appendASCIIEscape(dst, c, table[c])
				start = i
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if size > 1 && !runeNeedsEscape(r, f) {
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendRuneEscape(dst, r, size, f)
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendASCIIEscape appends the escape of ASCII byte c given its table entry.
func appendASCIIEscape(dst []byte, c, esc byte) []byte {
	if esc == 'u' {
		return appendUnicodeEscape(dst, uint16(c))
	}
	return append(dst, '\\', esc)
}

// runeNeedsEscape reports whether a valid non-ASCII rune is escaped:
// always in Standard; in Default only U+0080..U+009F and U+2028/9.
func runeNeedsEscape(r rune, f Flavour) bool {
	return f == Standard || r < 0xA0 || r == 0x2028 || r == 0x2029
}

// appendRuneEscape appends a non-ASCII rune (size 1 = invalid byte) escaped.
func appendRuneEscape(dst []byte, r rune, size int, f Flavour) []byte {
	if size == 1 {
		r = utf8.RuneError
		if f != Standard {
			return utf8.AppendRune(dst, r)
		}
	}
	if r >= 0x10000 {
		r -= 0x10000
		dst = appendUnicodeEscape(dst, uint16(0xD800+(r>>10)))
		return appendUnicodeEscape(dst, uint16(0xDC00+(r&0x3FF)))
	}
	return appendUnicodeEscape(dst, uint16(r))
}

// appendUnicodeEscape appends \uXXXX with uppercase hex digits.
func appendUnicodeEscape(dst []byte, u uint16) []byte {
	return append(dst, '\\', 'u',
		hexDigits[u>>12], hexDigits[u>>8&15], hexDigits[u>>4&15], hexDigits[u&15])
}

// AppendLong appends a Java long field value; Standard quotes values that
// JavaScript cannot represent exactly.
func AppendLong(dst []byte, v int64, f Flavour) []byte {
	if f == Standard && (v > MaxSafeLong || v < -MaxSafeLong) {
		dst = append(dst, '"')
		dst = strconv.AppendInt(dst, v, 10)
		return append(dst, '"')
	}
	return strconv.AppendInt(dst, v, 10)
}

// AppendNumberKey appends an Integer/Long map key followed by the colon:
// bare in Default (fastjson writes numeric keys unquoted), quoted in
// Standard.
func AppendNumberKey(dst []byte, k int64, f Flavour) []byte {
	if f == Standard {
		dst = append(dst, '"')
		dst = strconv.AppendInt(dst, k, 10)
		return append(dst, '"', ':')
	}
	dst = strconv.AppendInt(dst, k, 10)
	return append(dst, ':')
}
