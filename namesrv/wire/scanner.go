package wire

import (
	"fmt"

	"github.com/rmqgo/nameserver/internal/fastjson"
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
	strs  fastjson.StringReader
}

// newScanner returns a scanner over data.
func newScanner(data []byte) *scanner { return &scanner{data: data} }

// fail wraps err with the current offset.
func (s *scanner) fail(err error) error {
	return fmt.Errorf("%w at offset %d", err, s.pos)
}

// skipWS skips fastjson's whitespace set.
func (s *scanner) skipWS() { s.pos = fastjson.SkipWS(s.data, s.pos) }

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
// aliases the input when there are no escapes, else the reader's buffer.
func (s *scanner) quoted() ([]byte, error) {
	text, next, err := s.strs.Read(s.data, s.pos)
	s.pos = next
	if err != nil {
		return nil, s.fail(fmt.Errorf("%w: %w", ErrSyntax, err))
	}
	return text, nil
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
