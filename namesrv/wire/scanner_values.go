package wire

import (
	"math"
	"strconv"

	"github.com/rmqgo/nameserver/internal/fastjson"
)

// scalar reads a string, number or literal and returns its text; quoted
// reports a string literal. Null gives (nil, false, nil) with isNull set.
func (s *scanner) scalar() (text []byte, quoted, isNull bool, err error) {
	switch s.peek() {
	case '"', '\'':
		text, err = s.quoted()
		return text, true, false, err
	case '{', '[':
		return nil, false, false, s.fail(ErrType)
	}
	text = s.token()
	if len(text) == 0 {
		return nil, false, false, s.fail(ErrSyntax)
	}
	return text, false, string(text) == "null", nil
}

// str reads a string value; numbers and booleans are taken as their text
// (fastjson coerces them), null gives "".
func (s *scanner) str() (string, error) {
	text, _, isNull, err := s.scalar()
	if err != nil || isNull {
		return "", err
	}
	return string(text), nil
}

// strOrNull is str that also reports whether the value was null.
func (s *scanner) strOrNull() (string, bool, error) {
	text, _, isNull, err := s.scalar()
	if err != nil || isNull {
		return "", isNull, err
	}
	return string(text), false, nil
}

// int64v reads a long: a number, or a string holding one; null is 0.
func (s *scanner) int64v() (int64, error) {
	v, _, err := s.int64OrNull()
	return v, err
}

// int64OrNull is int64v that also reports a null long: the literal, or a
// string fastjson's TypeUtils.castToLong takes for null ("", "null",
// "NULL"). fastjson passes a null to the setter of no primitive field,
// which keeps its default.
func (s *scanner) int64OrNull() (v int64, isNull bool, err error) {
	if v, ok := s.plainInt(); ok {
		return v, false, nil
	}
	text, quoted, isNull, err := s.scalar()
	if err != nil || isNull {
		return 0, isNull, err
	}
	if quoted && (len(text) == 0 || string(text) == "null" || string(text) == "NULL") {
		return 0, true, nil
	}
	v, ok := parseLong(text)
	if !ok {
		return 0, false, s.fail(ErrNumber)
	}
	return v, false, nil
}

// plainInt is int64v's fast path: up to 18 plain decimal digits followed
// by a delimiter or the end. Anything else (sign, fraction, exponent,
// quotes, literals) leaves the position alone for the general path.
func (s *scanner) plainInt() (int64, bool) {
	s.skipWS()
	i, v := s.pos, int64(0)
	for ; i < len(s.data) && i-s.pos < 18; i++ {
		c := s.data[i]
		if c < '0' || c > '9' {
			break
		}
		v = v*10 + int64(c-'0')
	}
	if i == s.pos || (i < len(s.data) && !delims[s.data[i]]) {
		return 0, false
	}
	s.pos = i
	return v, true
}

// int32v reads an int like int64v and checks its range.
func (s *scanner) int32v() (int32, error) {
	v, err := s.int64v()
	if err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		err = s.fail(ErrNumber)
	}
	return int32(v), err
}

// setInt32 reads an int into *dst unless it is a null long (see
// int64OrNull): fastjson calls no primitive setter with null, so a field
// keeps its default or an earlier member's value.
func (s *scanner) setInt32(dst *int32) error {
	v, isNull, err := s.int64OrNull()
	switch {
	case err != nil || isNull:
		return err
	case v < math.MinInt32 || v > math.MaxInt32:
		return s.fail(ErrNumber)
	}
	*dst = int32(v)
	return nil
}

// boolv reads a boolean: true/false, their strings, or a number (non-zero
// is true); null is false.
func (s *scanner) boolv() (bool, error) {
	text, _, isNull, err := s.scalar()
	if err != nil || isNull {
		return false, err
	}
	switch string(text) {
	case "true", "TRUE", "True":
		return true, nil
	case "false", "FALSE", "False", "":
		return false, nil
	}
	v, ok := parseLong(text)
	if !ok {
		return false, s.fail(ErrType)
	}
	return v != 0, nil
}

// parseLong parses a decimal integer; a fraction or exponent is accepted
// and truncated toward zero, as fastjson does for integral fields.
func parseLong(b []byte) (int64, bool) {
	if v, ok := fastjson.ParseDecimal(b); ok {
		return v, true
	}
	if !isFloatText(b) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || f >= 1<<63 || f < -(1<<63) {
		return 0, false
	}
	return int64(f), true
}

// isFloatText reports whether b only has the bytes of a decimal float,
// keeping strconv's Go-only forms (hex, underscores, Inf) out.
func isFloatText(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-' {
			return false
		}
	}
	return true
}

// stringMap reads an object of string values (scalars coerced, nulls
// dropped). It returns nil for null and for an empty object.
func (s *scanner) stringMap() (map[string]string, error) {
	var m map[string]string
	_, err := s.object(func(key []byte) error {
		k := string(key)
		v, isNull, err := s.strOrNull()
		if err != nil || isNull {
			return err
		}
		if m == nil {
			m = make(map[string]string)
		}
		m[k] = v
		return nil
	})
	return m, err
}

// stringList reads an array of strings, dropping nulls. It returns nil for
// null and an empty non-nil slice for [].
func (s *scanner) stringList() ([]string, error) {
	list := []string{}
	ok, err := s.array(func() error {
		v, isNull, err := s.strOrNull()
		if err == nil && !isNull {
			list = append(list, v)
		}
		return err
	})
	if !ok {
		return nil, err
	}
	return list, err
}

// longKeyMap reads {id: "addr"} with bare or quoted Long keys; null gives
// nil, {} an empty map.
func (s *scanner) longKeyMap() (map[int64]string, error) {
	m := map[int64]string{}
	ok, err := s.object(func(key []byte) error {
		id, ok := parseLong(key)
		if !ok {
			return s.fail(ErrNumber)
		}
		v, isNull, err := s.strOrNull()
		if err == nil && !isNull {
			m[id] = v
		}
		return err
	})
	if !ok {
		return nil, err
	}
	return m, err
}

// intKeyMap reads {logicId: physicalId} with Integer keys and values.
func (s *scanner) intKeyMap() (map[int32]int32, error) {
	m := map[int32]int32{}
	ok, err := s.object(func(key []byte) error {
		id, ok := parseLong(key)
		if !ok || id < math.MinInt32 || id > math.MaxInt32 {
			return s.fail(ErrNumber)
		}
		v, err := s.int32v()
		m[int32(id)] = v
		return err
	})
	if !ok {
		return nil, err
	}
	return m, err
}
