package metrics

import (
	"bytes"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Type is a metric family type of the Prometheus text format.
type Type string

// Metric family types.
const (
	TypeCounter   Type = "counter"
	TypeGauge     Type = "gauge"
	TypeHistogram Type = "histogram"
)

var (
	metricNameRE = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelNameRE  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// mustValidName panics on a metric or label name the text format cannot
// carry: names are fixed in code, so a bad one is a programming error.
func mustValidName(name string, labels []string) {
	if !metricNameRE.MatchString(name) {
		panic("metrics: invalid metric name " + strconv.Quote(name))
	}
	for _, l := range labels {
		if !labelNameRE.MatchString(l) || strings.HasPrefix(l, "__") || l == "le" {
			panic("metrics: invalid label name " + strconv.Quote(l) + " of " + name)
		}
	}
}

// Writer accumulates the families of one scrape. Collectors add samples;
// a family emitted by several collectors is merged. It is not safe for
// concurrent use.
type Writer struct {
	families map[string]*family
}

type family struct {
	help  string
	typ   Type
	lines bytes.Buffer
}

func newWriter() *Writer { return &Writer{families: map[string]*family{}} }

// family returns the family called name, creating it. A second use with
// another type keeps the first type (the samples still land under it).
func (w *Writer) family(name, help string, typ Type) *family {
	f, ok := w.families[name]
	if !ok {
		f = &family{help: help, typ: typ}
		w.families[name] = f
	}
	return f
}

// Gauge adds one gauge sample; labelPairs alternate label name and value.
func (w *Writer) Gauge(name, help string, value float64, labelPairs ...string) {
	w.family(name, help, TypeGauge).sample(name, labelPairs, "", "", value)
}

// Counter adds one counter sample; labelPairs alternate label name and
// value. By convention name ends in _total.
func (w *Writer) Counter(name, help string, value float64, labelPairs ...string) {
	w.family(name, help, TypeCounter).sample(name, labelPairs, "", "", value)
}

// sample writes `name{pairs,extraName="extraValue"} value`.
func (f *family) sample(name string, pairs []string, extraName, extraValue string, v float64) {
	b := &f.lines
	b.WriteString(name)
	if len(pairs) > 0 || extraName != "" {
		b.WriteByte('{')
		sep := ""
		for i := 0; i+1 < len(pairs); i += 2 {
			writeLabel(b, sep, pairs[i], pairs[i+1])
			sep = ","
		}
		if extraName != "" {
			writeLabel(b, sep, extraName, extraValue)
		}
		b.WriteByte('}')
	}
	b.WriteByte(' ')
	b.WriteString(formatFloat(v))
	b.WriteByte('\n')
}

func writeLabel(b *bytes.Buffer, sep, name, value string) {
	b.WriteString(sep)
	b.WriteString(name)
	b.WriteString(`="`)
	labelEscaper.WriteString(b, value)
	b.WriteByte('"')
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

// formatFloat renders a sample value as Prometheus does.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// bufPool recycles scrape buffers.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeTo renders every family, sorted by name, into b.
func (w *Writer) writeTo(b *bytes.Buffer) {
	names := make([]string, 0, len(w.families))
	for n, f := range w.families {
		if f.lines.Len() > 0 {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		f := w.families[n]
		if f.help != "" {
			b.WriteString("# HELP " + n + " ")
			helpEscaper.WriteString(b, f.help)
			b.WriteByte('\n')
		}
		b.WriteString("# TYPE " + n + " " + string(f.typ) + "\n")
		b.Write(f.lines.Bytes())
	}
}
