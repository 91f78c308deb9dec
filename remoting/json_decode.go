package remoting

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rmqgo/nameserver/internal/fastjson"
)

// maxJSONDepth bounds nesting inside skipped values.
const maxJSONDepth = 64

// jsonScanner is a hand-written, allocation-light scanner for the JSON
// header. It accepts what fastjson accepts for a RemotingCommand in
// practice: language as a name or an ordinal, numbers or numeric strings for
// int fields, non-string extFields values (coerced to strings), unknown keys
// (skipped), null anywhere (default value).
type jsonScanner struct {
	b    []byte
	i    int
	strs fastjson.StringReader
	// spare, when not nil, is an empty map extValue fills instead of
	// allocating one (once: spare is then set to nil).
	spare map[string]string
}

func (s *jsonScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: json at offset %d: %s", ErrBadHeader, s.i, fmt.Sprintf(format, args...))
}

// decodeJSONHeader decodes a JSON header into c (which must be zeroed).
func decodeJSONHeader(b []byte, c *Command) error {
	_, err := decodeJSONHeaderSpare(b, c, nil)
	return err
}

// decodeJSONHeaderSpare is decodeJSONHeader filling spare (an empty map, or
// nil) as c.ExtFields instead of a new map; used reports whether it did.
func decodeJSONHeaderSpare(b []byte, c *Command, spare map[string]string) (used bool, err error) {
	s := jsonScanner{b: b, spare: spare}
	err = s.object(c)
	return spare != nil && s.spare == nil, err
}

// object decodes the top-level object into c.
func (s *jsonScanner) object(c *Command) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peekIs('}') {
		s.i++
		return s.end()
	}
	for {
		if err := s.member(c); err != nil {
			return err
		}
		done, err := s.next('}')
		if err != nil {
			return err
		}
		if done {
			return s.end()
		}
	}
}

// member decodes one `"key": value` of the top-level object.
func (s *jsonScanner) member(c *Command) error {
	key, err := s.str()
	if err != nil {
		return err
	}
	if err := s.expect(':'); err != nil {
		return err
	}
	switch headerKey(key) {
	case "code":
		c.Code, err = s.int32Value()
	case "flag":
		c.Flag, err = s.int32Value()
	case "opaque":
		c.Opaque, err = s.int32Value()
	case "version":
		c.Version, err = s.int32Value()
	case "language":
		c.Language, err = s.languageValue()
	case "remark":
		c.Remark, err = s.stringValue()
	case "extFields":
		c.ExtFields, err = s.extValue()
	default:
		err = s.skip(0)
	}
	return err
}

// headerKey maps a key to its field name, matching exactly first and then
// like fastjson's smart match (case-insensitive, '_' and '-' ignored).
func headerKey(key []byte) string {
	switch string(key) {
	case "code":
		return "code"
	case "flag":
		return "flag"
	case "opaque":
		return "opaque"
	case "version":
		return "version"
	case "language":
		return "language"
	case "remark":
		return "remark"
	case "extFields":
		return "extFields"
	case "serializeTypeCurrentRPC":
		return ""
	}
	norm := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(string(key)))
	switch norm {
	case "code", "flag", "opaque", "version", "language", "remark":
		return norm
	case "extfields":
		return "extFields"
	}
	return ""
}

// end accepts only trailing whitespace.
func (s *jsonScanner) end() error {
	s.ws()
	if s.i != len(s.b) {
		return s.errorf("trailing data")
	}
	return nil
}

// ws skips fastjson's whitespace set.
func (s *jsonScanner) ws() { s.i = fastjson.SkipWS(s.b, s.i) }

func (s *jsonScanner) peekIs(ch byte) bool {
	s.ws()
	return s.i < len(s.b) && s.b[s.i] == ch
}

func (s *jsonScanner) expect(ch byte) error {
	if !s.peekIs(ch) {
		return s.errorf("expected %q", ch)
	}
	s.i++
	return nil
}

// next consumes ',' (returns false) or the closing byte (returns true).
func (s *jsonScanner) next(closing byte) (bool, error) {
	s.ws()
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case ',':
			s.i++
			return false, nil
		case closing:
			s.i++
			return true, nil
		}
	}
	return false, s.errorf("expected ',' or %q", closing)
}

// literal consumes word if it comes next.
func (s *jsonScanner) literal(word string) bool {
	s.ws()
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// int32Value reads an int field: a number (fraction truncated), a numeric
// string ("" = 0) or null (0). Out-of-range values are errors.
func (s *jsonScanner) int32Value() (int32, error) {
	if s.ws(); s.i < len(s.b) && (s.b[s.i] >= '0' && s.b[s.i] <= '9' || s.b[s.i] == '-') {
		return parseInt32(s.number(), s) // the usual case, tested first
	}
	if s.literal("null") {
		return 0, nil
	}
	var tok []byte
	if s.peekIs('"') {
		str, err := s.str()
		if err != nil || len(str) == 0 {
			return 0, err
		}
		tok = str
	} else {
		tok = s.number()
	}
	return parseInt32(tok, s)
}

func parseInt32(tok []byte, s *jsonScanner) (int32, error) {
	if n, ok := fastjson.ParseDecimal(tok); ok && n >= math.MinInt32 && n <= math.MaxInt32 {
		return int32(n), nil
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil || math.IsNaN(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, s.errorf("bad int %q", tok)
	}
	return int32(f), nil
}

// number consumes a JSON number token and returns it (maybe empty).
func (s *jsonScanner) number() []byte {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] != '-' && (s.b[s.i] < '0' || s.b[s.i] > '9') {
		return nil
	}
	for s.i < len(s.b) {
		switch ch := s.b[s.i]; {
		case ch >= '0' && ch <= '9', ch == '-', ch == '+', ch == '.', ch == 'e', ch == 'E':
			s.i++
		default:
			return s.b[start:s.i]
		}
	}
	return s.b[start:s.i]
}

// languageValue reads a language name, an ordinal, or null.
func (s *jsonScanner) languageValue() (string, error) {
	if s.peekIs('"') { // the usual case, tested first
		str, err := s.str()
		return internLanguage(str), err
	}
	if s.literal("null") {
		return "", nil
	}
	n, err := parseInt32(s.number(), s)
	if err != nil {
		return "", err
	}
	return LanguageName(int(n)), nil
}

// stringValue reads a string; null gives "", other scalars their text.
func (s *jsonScanner) stringValue() (string, error) {
	v, isNull, err := s.scalarText()
	if err != nil || isNull {
		return "", err
	}
	return string(v), nil
}
