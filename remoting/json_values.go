package remoting

import (
	"unicode/utf16"
	"unicode/utf8"
)

// str reads a double- or (as fastjson allows) single-quoted string and returns
// its contents. The result aliases the input or s.scratch and is valid until
// the next call.
func (s *jsonScanner) str() ([]byte, error) {
	s.ws()
	if s.i >= len(s.b) || (s.b[s.i] != '"' && s.b[s.i] != '\'') {
		return nil, s.errorf("expected string")
	}
	quote := s.b[s.i]
	s.i++
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case quote:
			s.i++
			return s.b[start : s.i-1], nil
		case '\\':
			s.scratch = append(s.scratch[:0], s.b[start:s.i]...)
			return s.escapedStr(quote)
		}
		s.i++
	}
	return nil, s.errorf("unterminated string")
}

// escapedStr continues str from a backslash, unescaping into s.scratch.
func (s *jsonScanner) escapedStr(quote byte) ([]byte, error) {
	for s.i < len(s.b) {
		ch := s.b[s.i]
		s.i++
		switch ch {
		case quote:
			return s.scratch, nil
		case '\\':
			if err := s.unescape(); err != nil {
				return nil, err
			}
		default:
			s.scratch = append(s.scratch, ch)
		}
	}
	return nil, s.errorf("unterminated string")
}

// simpleEscapes maps the escape letters fastjson's lexer accepts to bytes.
var simpleEscapes = [256]byte{
	'"': '"', '\\': '\\', '/': '/', '\'': '\'',
	'b': '\b', 'f': '\f', 'F': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v',
	'0': 0, '1': 1, '2': 2, '3': 3, '4': 4, '5': 5, '6': 6, '7': 7,
}

// unescape decodes one escape after its backslash.
func (s *jsonScanner) unescape() error {
	if s.i >= len(s.b) {
		return s.errorf("unterminated escape")
	}
	ch := s.b[s.i]
	s.i++
	switch {
	case ch == 'u':
		return s.unicodeEscape()
	case ch == 'x':
		v, ok := s.hex(2)
		if !ok {
			return s.errorf("bad \\x escape")
		}
		s.scratch = utf8.AppendRune(s.scratch, rune(v))
		return nil
	case simpleEscapes[ch] != 0 || ch == '0':
		s.scratch = append(s.scratch, simpleEscapes[ch])
		return nil
	}
	return s.errorf("bad escape \\%c", ch)
}

// unicodeEscape decodes \uXXXX, joining a surrogate pair; a lone surrogate
// becomes U+FFFD as in Java's UTF-8 encoder.
func (s *jsonScanner) unicodeEscape() error {
	v, ok := s.hex(4)
	if !ok {
		return s.errorf("bad \\u escape")
	}
	r := rune(v)
	if utf16.IsSurrogate(r) && r < 0xDC00 && s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
		save := s.i
		s.i += 2
		if v2, ok := s.hex(4); ok && rune(v2) >= 0xDC00 && rune(v2) <= 0xDFFF {
			r = utf16.DecodeRune(r, rune(v2))
		} else {
			s.i = save
		}
	}
	s.scratch = utf8.AppendRune(s.scratch, r)
	return nil
}

// hex reads n hex digits.
func (s *jsonScanner) hex(n int) (uint32, bool) {
	if len(s.b)-s.i < n {
		return 0, false
	}
	var v uint32
	for _, c := range s.b[s.i : s.i+n] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint32(c)
	}
	s.i += n
	return v, true
}

// scalarText reads any value and returns its text the way fastjson coerces
// it to a String: string contents, number or boolean literal, raw JSON text
// of an object or array. isNull reports a null.
func (s *jsonScanner) scalarText() (text []byte, isNull bool, err error) {
	s.ws()
	if s.i >= len(s.b) {
		return nil, false, s.errorf("expected value")
	}
	switch ch := s.b[s.i]; {
	case ch == '"' || ch == '\'':
		text, err = s.str()
		return text, false, err
	case ch == '{' || ch == '[':
		start := s.i
		err = s.skip(0)
		return s.b[start:s.i], false, err
	case s.literal("null"):
		return nil, true, nil
	case s.literal("true"):
		return s.b[s.i-4 : s.i], false, nil
	case s.literal("false"):
		return s.b[s.i-5 : s.i], false, nil
	}
	if tok := s.number(); len(tok) > 0 {
		return tok, false, nil
	}
	return nil, false, s.errorf("unexpected %q", s.b[s.i])
}

// extValue reads extFields: null → nil map, an object → its entries with
// values coerced to strings; null values are dropped (a null field).
func (s *jsonScanner) extValue() (map[string]string, error) {
	if s.literal("null") {
		return nil, nil
	}
	if err := s.expect('{'); err != nil {
		return nil, err
	}
	m := make(map[string]string, 4)
	if s.peekIs('}') {
		s.i++
		return m, nil
	}
	for {
		if err := s.extEntry(m); err != nil {
			return nil, err
		}
		done, err := s.next('}')
		if err != nil || done {
			return m, err
		}
	}
}

func (s *jsonScanner) extEntry(m map[string]string) error {
	kb, err := s.str()
	if err != nil {
		return err
	}
	key := internExtKey(kb)
	if err := s.expect(':'); err != nil {
		return err
	}
	v, isNull, err := s.scalarText()
	if err != nil {
		return err
	}
	if isNull {
		delete(m, key)
		return nil
	}
	m[key] = internExtValue(v)
	return nil
}

// skip consumes one value of any kind.
func (s *jsonScanner) skip(depth int) error {
	if depth > maxJSONDepth {
		return s.errorf("nesting too deep")
	}
	s.ws()
	if s.i >= len(s.b) {
		return s.errorf("expected value")
	}
	switch s.b[s.i] {
	case '{':
		return s.skipObject(depth)
	case '[':
		return s.skipArray(depth)
	}
	_, _, err := s.scalarText()
	return err
}

func (s *jsonScanner) skipObject(depth int) error {
	s.i++
	if s.peekIs('}') {
		s.i++
		return nil
	}
	for {
		if _, err := s.str(); err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := s.skip(depth + 1); err != nil {
			return err
		}
		if done, err := s.next('}'); err != nil || done {
			return err
		}
	}
}

func (s *jsonScanner) skipArray(depth int) error {
	s.i++
	if s.peekIs(']') {
		s.i++
		return nil
	}
	for {
		if err := s.skip(depth + 1); err != nil {
			return err
		}
		if done, err := s.next(']'); err != nil || done {
			return err
		}
	}
}
