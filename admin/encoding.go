package admin

import (
	"github.com/rmqgo/nameserver/config"

	"encoding/json"
	"fmt"
	"strings"
)

// QuoteNumericKeys rewrites fastjson's unquoted numeric object keys
// ({1:"a"}) as JSON strings ({"1":"a"}) so encoding/json can read them
// (into a map with integer keys). Strings, array elements and values are
// left alone; malformed input is returned with whatever was rewritten and
// left for the JSON decoder to reject.
func QuoteNumericKeys(b []byte) []byte {
	out := make([]byte, 0, len(b)+8)
	var stack []byte // '{' or '['
	expectKey, inStr, esc := false, false, false
	for i := 0; i < len(b); i++ {
		ch := b[i]
		if inStr {
			out = append(out, ch)
			inStr, esc = inStringStep(ch, esc)
			continue
		}
		if expectKey && isNumberStart(ch) {
			j := numberEnd(b, i)
			out = append(append(append(out, '"'), b[i:j]...), '"')
			i, expectKey = j-1, false
			continue
		}
		out = append(out, ch)
		switch ch {
		case '"':
			inStr, expectKey = true, false
		case '{', '[':
			stack = append(stack, ch)
			expectKey = ch == '{'
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
		case ' ', '\t', '\r', '\n':
		default:
			expectKey = false
		}
	}
	return out
}

// inStringStep advances the string state over ch: it reports whether the
// string goes on and whether the next byte is escaped.
func inStringStep(ch byte, esc bool) (inStr, nextEsc bool) {
	switch {
	case esc:
		return true, false
	case ch == '\\':
		return true, true
	case ch == '"':
		return false, false
	}
	return true, false
}

func isNumberStart(ch byte) bool { return ch == '-' || (ch >= '0' && ch <= '9') }

// numberEnd returns the index just past the number token starting at i.
func numberEnd(b []byte, i int) int {
	j := i + 1
	for j < len(b) && (isNumberStart(b[j]) || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+') {
		j++
	}
	return j
}

// decodeLenient unmarshals a fastjson body into v.
func decodeLenient(addr, what string, b []byte, v any) error {
	if err := json.Unmarshal(QuoteNumericKeys(b), v); err != nil {
		return fmt.Errorf("%s: cannot decode %s: %w", addr, what, err)
	}
	return nil
}

// Property is one key=value of a NameServer or Controller configuration.
type Property struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// ParseProperties reads the "key=value\n" text of GET_NAMESRV_CONFIG and
// GET_CONTROLLER_CONFIG, keeping the order of the lines. Blank lines and
// comments (# or !) are skipped; a line without '=' or ':' is a key with
// an empty value. Values are taken verbatim, as the servers do not escape
// them.
func ParseProperties(b []byte) []Property {
	var out []Property
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimLeft(strings.TrimSuffix(line, "\r"), " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		i := strings.IndexAny(line, "=:")
		if i < 0 {
			out = append(out, Property{Key: strings.TrimSpace(line)})
			continue
		}
		key := strings.TrimRight(line[:i], " \t\f")
		out = append(out, Property{Key: key, Value: strings.TrimLeft(line[i+1:], " \t\f")})
	}
	return out
}

// FormatProperties writes props as the body of an update request, one
// "key=value" line each with Java properties escaping, as
// MixAll.properties2String does.
func FormatProperties(props []Property) []byte {
	var b strings.Builder
	for _, p := range props {
		b.WriteString(config.PropertyLine(p.Key, p.Value))
	}
	return []byte(b.String())
}
