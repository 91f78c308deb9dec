package metricstest

import (
	"fmt"
	"math"
	"strings"
)

// parseLabels reads `l="v",...}` (after the opening brace) into out and
// returns what follows the closing brace.
func parseLabels(s string, out map[string]string) (string, error) {
	for {
		if rest, ok := strings.CutPrefix(s, "}"); ok {
			return rest, nil
		}
		name, rest, ok := strings.Cut(s, `="`)
		if !ok || !labelNameRE.MatchString(name) {
			return "", fmt.Errorf("bad label near %q", s)
		}
		if _, dup := out[name]; dup {
			return "", fmt.Errorf("duplicate label %s", name)
		}
		value, rest, err := unquote(rest)
		if err != nil {
			return "", err
		}
		out[name] = value
		s = strings.TrimPrefix(rest, ",")
		if s == rest && !strings.HasPrefix(s, "}") {
			return "", fmt.Errorf("expected , or } near %q", s)
		}
	}
}

// unquote reads an escaped label value up to its closing quote.
func unquote(s string) (value, rest string, err error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\n':
			return "", "", fmt.Errorf("raw newline in label value")
		case '\\':
			if i+1 == len(s) {
				return "", "", fmt.Errorf("dangling escape")
			}
			i++
			switch s[i] {
			case '\\', '"':
				b.WriteByte(s[i])
			case 'n':
				b.WriteByte('\n')
			default:
				return "", "", fmt.Errorf("bad escape \\%c", s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("unterminated label value")
}

// checkFamily checks what the text format requires of a family's values.
func checkFamily(f *Family) error {
	if f.Type == "" {
		return fmt.Errorf("no TYPE")
	}
	for _, s := range f.Samples {
		if f.Type == "counter" && s.Value < 0 {
			return fmt.Errorf("negative counter %s", seriesKey(s))
		}
	}
	if f.Type == "histogram" {
		return checkHistogram(f)
	}
	return nil
}

// histogramSeries collects one label set's buckets and count.
type histogramSeries struct {
	buckets  []bucket
	count    float64
	hasCount bool
}

type bucket struct{ le, n float64 }

func checkHistogram(f *Family) error {
	all := map[string]*histogramSeries{}
	for _, s := range f.Samples {
		le, hasLE := s.Labels["le"]
		base := Sample{Labels: without(s.Labels, "le")}
		h := all[seriesKey(base)]
		if h == nil {
			h = &histogramSeries{}
			all[seriesKey(base)] = h
		}
		switch strings.TrimPrefix(s.Name, f.Name) {
		case "_bucket":
			v, err := parseValue(le)
			if !hasLE || err != nil {
				return fmt.Errorf("bucket without a valid le")
			}
			h.buckets = append(h.buckets, bucket{v, s.Value})
		case "_count":
			h.count, h.hasCount = s.Value, true
		}
	}
	for key, h := range all {
		if err := h.check(); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	return nil
}

func (h *histogramSeries) check() error {
	if len(h.buckets) == 0 || !h.hasCount {
		return fmt.Errorf("missing buckets or _count")
	}
	for i := 1; i < len(h.buckets); i++ {
		if h.buckets[i].le <= h.buckets[i-1].le || h.buckets[i].n < h.buckets[i-1].n {
			return fmt.Errorf("buckets not increasing and cumulative")
		}
	}
	last := h.buckets[len(h.buckets)-1]
	if !math.IsInf(last.le, 1) || last.n != h.count {
		return fmt.Errorf("+Inf bucket %v != _count %v", last.n, h.count)
	}
	return nil
}

func without(m map[string]string, key string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}
