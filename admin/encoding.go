package admin

import (
	"github.com/rmqgo/nameserver/config"

	"strings"
)

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
