package config

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Unread is a property of the -c file that the server does not read: a key
// of no setting (a typo, or a Java key this server has no use for), or a
// line with no '=' or ':' separator. Java accepts both without a word; the
// server logs one warning for each at start and the check mode prints them.
type Unread struct {
	Key string
	// Nearest is the known key closest to Key (case-insensitive edit
	// distance), "" when none is close.
	Nearest string
	// Line and Text are the 1-based line number and text of a line with
	// no separator (Java reads "a b c" as key a, value "b c"); Line is 0
	// for a key=value line.
	Line int
	Text string
	// More, on the last entry of a list cut at maxUnread, counts the keys
	// left out (Key is then empty).
	More int
}

// maxUnread bounds the entries Unread lists (and the warnings logged);
// maxUnreadText the line text kept.
const (
	maxUnread     = 100
	maxUnreadText = 200
)

// String is the warning printed by the check mode.
func (u Unread) String() string {
	if u.More > 0 {
		return fmt.Sprintf("%d more keys no setting reads", u.More)
	}
	if u.Line > 0 {
		return fmt.Sprintf("line %d (%q) is not a key=value property: read as key %s, which no setting has", u.Line, u.Text, u.Key)
	}
	if u.Nearest != "" {
		return fmt.Sprintf("unknown key %s is ignored (nearest known key: %s)", u.Key, u.Nearest)
	}
	return fmt.Sprintf("unknown key %s is ignored", u.Key)
}

// LogArgs are hclog key/value pairs describing u.
func (u Unread) LogArgs() []any {
	if u.More > 0 {
		return []any{"more_keys", u.More}
	}
	args := []any{"key", u.Key}
	if u.Nearest != "" {
		args = append(args, "nearest", u.Nearest)
	}
	if u.Line > 0 {
		args = append(args, "line", u.Line, "text", u.Text)
	}
	return args
}

// Unread lists the properties of the -c file that no setting of the
// NameServer, its embedded controller or TLS reads, sorted by key.
func (c *NamesrvConfig) Unread() []Unread {
	d := defaults()
	return unreadOf(c.raw, c.bare, knownKeys(bindings(d), bindings(&d.Controller)))
}

// Unread lists the properties of the -c file that no setting of the
// controller or TLS reads, sorted by key.
func (cc *ControllerConfig) Unread() []Unread {
	return unreadOf(cc.raw, cc.bare, knownKeys(bindings(controllerDefaults(0))))
}

// knownKeys are the keys and rendered names of bs, of the TLS settings, and
// jraftConfig (shown by GET_CONTROLLER_CONFIG, so found in files written
// from its output).
func knownKeys(bs ...[]binding) map[string]bool {
	known := map[string]bool{"jraftConfig": true}
	for _, list := range append(bs, bindings(DefaultTLS())) {
		for _, b := range list {
			known[b.key], known[b.render] = true, true
		}
	}
	return known
}

func unreadOf(raw map[string]string, bare map[string]bareLine, known map[string]bool) []Unread {
	var out []Unread
	more := 0
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if known[k] {
			continue
		}
		if len(out) == maxUnread {
			more++
			continue
		}
		u := Unread{Key: k, Nearest: nearestKey(k, known)}
		if l, ok := bare[k]; ok {
			u.Line, u.Text = l.n, l.text
		}
		out = append(out, u)
	}
	if more > 0 {
		out = append(out, Unread{More: more})
	}
	return out
}

// bareLine is a line of a properties file with no '=' or ':' separator.
type bareLine struct {
	n    int
	text string
}

// bareLines maps the first word of each separator-less line of data to
// that line. Comments, blank lines and continuation lines are skipped.
func bareLines(data []byte) map[string]bareLine {
	out := map[string]bareLine{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	continued := false
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		cont := continued
		continued = strings.HasSuffix(line, `\`)
		if cont || line == "" || line[0] == '#' || line[0] == '!' || strings.ContainsAny(line, "=:") {
			continue
		}
		key, _, _ := strings.Cut(line, " ")
		key, _, _ = strings.Cut(key, "\t")
		if _, seen := out[key]; !seen {
			out[key] = bareLine{n: n, text: truncate(line, maxUnreadText)}
		}
	}
	return out
}

// maxSuggestLen bounds the keys given a nearest key (the distance costs
// the product of the lengths).
const maxSuggestLen = 128

// nearestKey is the key of known closest to k by case-insensitive edit
// distance, if within a third of k's length (at least 2 edits); else "".
func nearestKey(k string, known map[string]bool) string {
	if len(k) > maxSuggestLen {
		return ""
	}
	best, bestD := "", max(2, len(k)/3)+1
	lk := strings.ToLower(k)
	for _, cand := range slices.Sorted(maps.Keys(known)) {
		if d := editDistance(lk, strings.ToLower(cand)); d < bestD {
			best, bestD = cand, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// truncate cuts s to at most n bytes, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}
