package body

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds JSON nesting so hostile bodies cannot exhaust the stack.
const maxDepth = 256

// scanner is a lenient pull parser for the JSON fastjson writes and reads:
// it accepts unquoted (numeric or identifier) and single-quoted keys,
// trailing commas and fastjson's extra escapes, and reports every problem
// as an error instead of panicking. Work is linear in the input size.
type scanner struct {
	data  []byte
	pos   int
	depth int
	buf   []byte // scratch for strings that contain escapes
}

// newScanner returns a scanner over data.
func newScanner(data []byte) *scanner { return &scanner{data: data} }

// fail wraps err with the current offset.
func (s *scanner) fail(err error) error {
	return fmt.Errorf("%w at offset %d", err, s.pos)
}

// skipWS skips fastjson's whitespace set. Every byte of that set is at
// most ' ', so compact JSON takes the first test only.
func (s *scanner) skipWS() {
	if s.pos < len(s.data) && s.data[s.pos] > ' ' {
		return
	}
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r', '\f', '\b':
			s.pos++
		default:
			return
		}
	}
}

// peek skips whitespace and returns the next byte, 0 at the end.
func (s *scanner) peek() byte {
	s.skipWS()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// end checks that only whitespace remains.
func (s *scanner) end() error {
	if s.peek() != 0 || s.pos < len(s.data) {
		return s.fail(ErrSyntax)
	}
	return nil
}

// delims marks the bytes that end a bare token.
var delims = [256]bool{',': true, ':': true, '{': true, '}': true, '[': true, ']': true, '"': true,
	'\'': true, ' ': true, '\t': true, '\n': true, '\r': true, '\f': true, '\b': true}

// isDelim reports whether c ends a bare token.
func isDelim(c byte) bool { return delims[c] }

// token consumes a bare token (number, literal or unquoted key).
func (s *scanner) token() []byte {
	start, i := s.pos, s.pos
	for i < len(s.data) && !delims[s.data[i]] {
		i++
	}
	s.pos = i
	return s.data[start:i]
}

// null consumes the literal null if it comes next.
func (s *scanner) null() bool {
	if s.peek() != 'n' {
		return false
	}
	save := s.pos
	if string(s.token()) == "null" {
		return true
	}
	s.pos = save
	return false
}

// open consumes the opening bracket c, or null (then it returns false).
func (s *scanner) open(c byte) (bool, error) {
	if s.null() {
		return false, nil
	}
	if s.peek() != c {
		return false, s.fail(ErrType)
	}
	if s.depth >= maxDepth {
		return false, s.fail(ErrTooDeep)
	}
	s.pos++
	s.depth++
	return true, nil
}

// more advances inside an open object or array: it consumes the separator
// before element n > 0 and reports false after consuming the closing byte.
func (s *scanner) more(n int, closing byte) (bool, error) {
	c := s.peek()
	if n > 0 && c == ',' {
		s.pos++
		c = s.peek()
	} else if n > 0 && c != closing {
		return false, s.fail(ErrSyntax)
	}
	if c == closing {
		s.pos++
		s.depth--
		return false, nil
	}
	if c == 0 || c == ',' {
		return false, s.fail(ErrSyntax)
	}
	return true, nil
}

// object calls fn for each member of an object, positioned at the value;
// the key slice is only valid until the next read. It returns false for null.
func (s *scanner) object(fn func(key []byte) error) (bool, error) {
	if ok, err := s.open('{'); !ok {
		return false, err
	}
	for n := 0; ; n++ {
		if ok, err := s.more(n, '}'); !ok {
			return true, err
		}
		key, err := s.key()
		if err != nil {
			return true, err
		}
		if err := fn(key); err != nil {
			return true, err
		}
	}
}

// array calls fn for each element of an array, positioned at the element.
// It returns false for null.
func (s *scanner) array(fn func() error) (bool, error) {
	if ok, err := s.open('['); !ok {
		return false, err
	}
	for n := 0; ; n++ {
		if ok, err := s.more(n, ']'); !ok {
			return true, err
		}
		if err := fn(); err != nil {
			return true, err
		}
	}
}

// key reads an object key (quoted or bare) and the colon after it.
func (s *scanner) key() ([]byte, error) {
	var key []byte
	var err error
	if c := s.peek(); c == '"' || c == '\'' {
		key, err = s.quoted()
	} else if key = s.token(); len(key) == 0 {
		err = s.fail(ErrSyntax)
	}
	if err != nil {
		return nil, err
	}
	if s.peek() != ':' {
		return nil, s.fail(ErrSyntax)
	}
	s.pos++
	return key, nil
}

// quoted reads a string literal at the current quote byte. The result
// aliases the input when there are no escapes, else the scratch buffer.
func (s *scanner) quoted() ([]byte, error) {
	q := s.data[s.pos]
	start := s.pos + 1
	for i := quoteOrEscape(s.data, start, q); i < len(s.data); i++ {
		switch s.data[i] {
		case q:
			s.pos = i + 1
			return s.data[start:i], nil
		case '\\':
			s.pos = start
			return s.unescape(q)
		}
	}
	s.pos = len(s.data)
	return nil, s.fail(ErrSyntax)
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

// unescape decodes a string with escapes into the scratch buffer.
func (s *scanner) unescape(q byte) ([]byte, error) {
	s.buf = s.buf[:0]
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		s.pos++
		switch c {
		case q:
			return s.buf, nil
		case '\\':
			if err := s.escape(); err != nil {
				return nil, err
			}
		default:
			s.buf = append(s.buf, c)
		}
	}
	return nil, s.fail(ErrSyntax)
}

// simpleEscapes maps escape letters to the byte they stand for.
var simpleEscapes = [128]byte{
	'"': '"', '\'': '\'', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'F': '\f',
	'n': '\n', 'r': '\r', 't': '\t', 'v': '\v', '0': 0, '1': 1, '2': 2,
	'3': 3, '4': 4, '5': 5, '6': 6, '7': 7,
}

// escape decodes one escape sequence after its backslash.
func (s *scanner) escape() error {
	if s.pos >= len(s.data) {
		return s.fail(ErrSyntax)
	}
	c := s.data[s.pos]
	s.pos++
	switch {
	case c == 'u':
		return s.unicodeEscape()
	case c == 'x':
		v, ok := s.hex(2)
		s.buf = utf8.AppendRune(s.buf, v)
		return okOr(ok, s, ErrSyntax)
	case c < 128 && (simpleEscapes[c] != 0 || c == '0'):
		s.buf = append(s.buf, simpleEscapes[c])
		return nil
	}
	return s.fail(ErrSyntax)
}

// okOr returns nil when ok, else err at the scanner's offset.
func okOr(ok bool, s *scanner, err error) error {
	if ok {
		return nil
	}
	return s.fail(err)
}

// unicodeEscape decodes \uXXXX, joining a surrogate pair when one follows.
func (s *scanner) unicodeEscape() error {
	r, ok := s.hex(4)
	if !ok {
		return s.fail(ErrSyntax)
	}
	if utf16.IsSurrogate(r) && r < 0xDC00 && bytes.HasPrefix(s.data[s.pos:], []byte(`\u`)) {
		save := s.pos
		s.pos += 2
		lo, ok := s.hex(4)
		if pair := utf16.DecodeRune(r, lo); ok && pair != utf8.RuneError {
			s.buf = utf8.AppendRune(s.buf, pair)
			return nil
		}
		s.pos = save
	}
	s.buf = utf8.AppendRune(s.buf, r)
	return nil
}

// hex reads n hex digits.
func (s *scanner) hex(n int) (rune, bool) {
	if len(s.data)-s.pos < n {
		return 0, false
	}
	var v rune
	for _, c := range s.data[s.pos : s.pos+n] {
		d, ok := hexValue(c)
		if !ok {
			return 0, false
		}
		v = v<<4 | d
	}
	s.pos += n
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

// skip consumes one value of any type.
func (s *scanner) skip() error {
	switch s.peek() {
	case '{':
		_, err := s.object(func([]byte) error { return s.skip() })
		return err
	case '[':
		_, err := s.array(s.skip)
		return err
	case '"', '\'':
		_, err := s.quoted()
		return err
	}
	if len(s.token()) == 0 {
		return s.fail(ErrSyntax)
	}
	return nil
}
