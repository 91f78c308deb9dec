// Package metricstest parses and checks the Prometheus text exposition
// format (version 0.0.4) in tests: the module cannot import
// prometheus/common/expfmt, so this is a strict stand-in for it.
package metricstest

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Sample is one parsed sample line.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Family is one metric family: its # HELP, # TYPE and samples.
type Family struct {
	Name, Help, Type string
	Samples          []Sample
}

// Families are the parsed families by name.
type Families map[string]*Family

var (
	metricNameRE = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelNameRE  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	types        = []string{"counter", "gauge", "histogram", "summary", "untyped"}
)

// Parse parses text strictly: every sample follows the # TYPE of its
// family, families are contiguous and declared once, names and labels are
// valid, no series repeats, counters are not negative and histograms are
// cumulative with +Inf equal to _count.
func Parse(text []byte) (Families, error) {
	p := &parser{fams: Families{}, seen: map[string]bool{}}
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if err := p.line(sc.Text()); err != nil {
			return nil, fmt.Errorf("line %d: %w: %q", n, err, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, f := range p.fams {
		if err := checkFamily(f); err != nil {
			return nil, fmt.Errorf("family %s: %w", f.Name, err)
		}
	}
	return p.fams, nil
}

type parser struct {
	fams Families
	cur  *Family
	seen map[string]bool // series already read (name + sorted labels)
}

func (p *parser) line(l string) error {
	switch {
	case strings.TrimSpace(l) == "":
		return nil
	case strings.HasPrefix(l, "# HELP "), strings.HasPrefix(l, "# TYPE "):
		return p.meta(l[2:6], l[7:])
	case strings.HasPrefix(l, "#"):
		return nil
	}
	return p.sample(l)
}

// meta reads `# HELP name text` or `# TYPE name type`.
func (p *parser) meta(kind, rest string) error {
	name, arg, _ := strings.Cut(rest, " ")
	if !metricNameRE.MatchString(name) {
		return fmt.Errorf("bad metric name %q", name)
	}
	f := p.fams[name]
	if f == nil {
		f = &Family{Name: name}
		p.fams[name] = f
	} else if f != p.cur || len(f.Samples) > 0 {
		return fmt.Errorf("family %s declared again", name)
	}
	p.cur = f
	if kind == "HELP" {
		f.Help = arg
		return nil
	}
	if f.Type != "" || !slices.Contains(types, arg) {
		return fmt.Errorf("bad or repeated TYPE %q", arg)
	}
	f.Type = arg
	return nil
}

func (p *parser) sample(l string) error {
	s, err := parseSample(l)
	if err != nil {
		return err
	}
	if p.cur == nil || p.cur.Type == "" || !belongs(p.cur, s.Name) {
		return fmt.Errorf("sample %s outside its family", s.Name)
	}
	key := seriesKey(s)
	if p.seen[key] {
		return fmt.Errorf("duplicate series %s", key)
	}
	p.seen[key] = true
	p.cur.Samples = append(p.cur.Samples, s)
	return nil
}

// belongs reports whether a sample name is part of family f.
func belongs(f *Family, name string) bool {
	if name == f.Name {
		return f.Type != "histogram"
	}
	suffix, ok := strings.CutPrefix(name, f.Name)
	switch f.Type {
	case "histogram":
		return ok && slices.Contains([]string{"_bucket", "_sum", "_count"}, suffix)
	case "summary":
		return ok && slices.Contains([]string{"_sum", "_count"}, suffix)
	}
	return false
}

func seriesKey(s Sample) string {
	keys := make([]string, 0, len(s.Labels))
	for k, v := range s.Labels {
		keys = append(keys, k+"="+strconv.Quote(v))
	}
	slices.Sort(keys)
	return s.Name + "{" + strings.Join(keys, ",") + "}"
}

// parseSample reads `name{l="v",...} value [timestamp]`.
func parseSample(l string) (Sample, error) {
	end := strings.IndexAny(l, "{ ")
	if end < 0 {
		return Sample{}, fmt.Errorf("no value")
	}
	s := Sample{Name: l[:end], Labels: map[string]string{}}
	if !metricNameRE.MatchString(s.Name) {
		return s, fmt.Errorf("bad metric name %q", s.Name)
	}
	rest := l[end:]
	if rest[0] == '{' {
		var err error
		if rest, err = parseLabels(rest[1:], s.Labels); err != nil {
			return s, err
		}
	}
	fields := strings.Fields(rest)
	if len(fields) < 1 || len(fields) > 2 || !strings.HasPrefix(rest, " ") {
		return s, fmt.Errorf("bad value part %q", rest)
	}
	v, err := parseValue(fields[0])
	s.Value = v
	return s, err
}

func parseValue(s string) (float64, error) {
	switch s {
	case "+Inf":
		return math.Inf(1), nil
	case "-Inf":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	return strconv.ParseFloat(s, 64)
}
