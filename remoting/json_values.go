package remoting

import (
	"fmt"
)

// str reads a double- or (as fastjson allows) single-quoted string and returns
// its contents. The result aliases the input or the reader's buffer and is
// valid until the next call.
func (s *jsonScanner) str() ([]byte, error) {
	s.ws()
	if s.i >= len(s.b) || (s.b[s.i] != '"' && s.b[s.i] != '\'') {
		return nil, s.errorf("expected string")
	}
	text, next, err := s.strs.Read(s.b, s.i)
	s.i = next
	if err != nil {
		return nil, fmt.Errorf("%w: json at offset %d: %w", ErrBadHeader, s.i, err)
	}
	return text, nil
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
	m := s.spare
	s.spare = nil
	if m == nil {
		m = make(map[string]string, 4)
	}
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
