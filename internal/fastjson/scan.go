package fastjson

import (
	"encoding/binary"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// Sentinel errors of the string reader.
var (
	// ErrUnterminated is a string literal without its closing quote.
	ErrUnterminated = errors.New("unterminated string")
	// ErrEscape is an escape sequence fastjson's lexer does not accept.
	ErrEscape = errors.New("bad escape")
)

// StringReader decodes string literals as fastjson's JSONLexer reads them:
// double or single quotes, the escapes \" \' \\ \/ \b \f \F \n \r \t \v,
// \0..\7, \xHH and \uXXXX (a surrogate pair joined, a lone surrogate as
// U+FFFD). The zero value is ready; it keeps one scratch buffer for
// strings with escapes.
type StringReader struct {
	buf []byte
}

// Read decodes the literal whose opening quote is data[pos] and returns its
// contents and the index just past the closing quote; on error, the index
// where decoding stopped. The contents alias data when the literal has no
// escape, else the reader's buffer, valid until the next Read.
func (r *StringReader) Read(data []byte, pos int) ([]byte, int, error) {
	q := data[pos]
	start := pos + 1
	for i := quoteOrEscape(data, start, q); i < len(data); i++ {
		switch data[i] {
		case q:
			return data[start:i], i + 1, nil
		case '\\':
			r.buf = append(r.buf[:0], data[start:i]...)
			return r.unescape(data, i, q)
		}
	}
	return nil, len(data), ErrUnterminated
}

// Word constants of quoteOrEscape.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// quoteOrEscape returns the index of the first 8-byte word at or after
// start holding the quote byte q or a backslash (or the start of the tail
// shorter than a word), testing eight bytes at a time.
func quoteOrEscape(data []byte, start int, q byte) int {
	qs, bs := uint64(q)*lowBits, uint64('\\')*lowBits
	i := start
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		if hasZeroByte(w^qs)|hasZeroByte(w^bs) != 0 {
			return i
		}
	}
	return i
}

// hasZeroByte is non-zero when some byte of x is zero.
func hasZeroByte(x uint64) uint64 { return (x - lowBits) &^ x & highBits }

// unescape continues Read from the first backslash at data[i].
func (r *StringReader) unescape(data []byte, i int, q byte) ([]byte, int, error) {
	for i < len(data) {
		c := data[i]
		i++
		switch c {
		case q:
			return r.buf, i, nil
		case '\\':
			var err error
			if i, err = r.escape(data, i); err != nil {
				return nil, i, err
			}
		default:
			r.buf = append(r.buf, c)
		}
	}
	return nil, i, ErrUnterminated
}

// simpleEscapes maps escape letters to the byte they stand for.
var simpleEscapes = [256]byte{
	'"': '"', '\'': '\'', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'F': '\f',
	'n': '\n', 'r': '\r', 't': '\t', 'v': '\v', '0': 0, '1': 1, '2': 2,
	'3': 3, '4': 4, '5': 5, '6': 6, '7': 7,
}

// escape decodes one escape sequence whose letter is data[i].
func (r *StringReader) escape(data []byte, i int) (int, error) {
	if i >= len(data) {
		return i, ErrUnterminated
	}
	c := data[i]
	i++
	switch {
	case c == 'u':
		return r.unicodeEscape(data, i)
	case c == 'x':
		v, ok := hex(data, i, 2)
		if !ok {
			return i, ErrEscape
		}
		r.buf = utf8.AppendRune(r.buf, v)
		return i + 2, nil
	case simpleEscapes[c] != 0 || c == '0':
		r.buf = append(r.buf, simpleEscapes[c])
		return i, nil
	}
	return i, ErrEscape
}

// unicodeEscape decodes the XXXX of \uXXXX at data[i], joining a surrogate
// pair when one follows.
func (r *StringReader) unicodeEscape(data []byte, i int) (int, error) {
	v, ok := hex(data, i, 4)
	if !ok {
		return i, ErrEscape
	}
	i += 4
	if utf16.IsSurrogate(v) && v < 0xDC00 && i+6 <= len(data) && data[i] == '\\' && data[i+1] == 'u' {
		lo, ok := hex(data, i+2, 4)
		if pair := utf16.DecodeRune(v, lo); ok && pair != utf8.RuneError {
			r.buf = utf8.AppendRune(r.buf, pair)
			return i + 6, nil
		}
	}
	r.buf = utf8.AppendRune(r.buf, v)
	return i, nil
}

// hex reads n hex digits at data[i].
func hex(data []byte, i, n int) (rune, bool) {
	if len(data)-i < n {
		return 0, false
	}
	var v rune
	for _, c := range data[i : i+n] {
		d, ok := hexValue(c)
		if !ok {
			return 0, false
		}
		v = v<<4 | d
	}
	return v, true
}

// hexValue returns the value of a hex digit.
func hexValue(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10), true
	case c >= 'A' && c <= 'F':
		return rune(c - 'A' + 10), true
	}
	return 0, false
}

// SkipWS returns the index of the first byte at or after i that is not in
// fastjson's white-space set (space, \t, \n, \r, \f, \b). Every byte of
// that set is at most ' ', so compact JSON takes the first test only.
func SkipWS(data []byte, i int) int {
	if i < len(data) && data[i] > ' ' {
		return i
	}
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r', '\f', '\b':
			i++
		default:
			return i
		}
	}
	return i
}
