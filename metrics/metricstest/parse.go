// Package metricstest parses the Prometheus text exposition format in
// tests with prometheus/common/expfmt's TextParser and flattens it into
// samples that are easy to query: a histogram becomes its _bucket (with
// le), _sum and _count samples, a summary its quantile, _sum and _count
// samples, as they appear on the wire.
package metricstest

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Sample is one sample line.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Family is one metric family: its # HELP, # TYPE (lower case) and
// samples.
type Family struct {
	Name, Help, Type string
	Samples          []Sample
}

// Families are the parsed families by name.
type Families map[string]*Family

// Parse parses text with expfmt's TextParser (classic names only), then
// checks what the parser leaves to its callers: every family has a TYPE,
// no series repeats, no counter is negative, and histogram buckets are
// increasing and cumulative, ending with +Inf equal to _count.
func Parse(text []byte) (Families, error) {
	p := expfmt.NewTextParser(model.LegacyValidation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return nil, err
	}
	fs := make(Families, len(mfs))
	for name, mf := range mfs {
		if err := checkType(mf); err != nil {
			return nil, fmt.Errorf("family %s: %w", name, err)
		}
		f := flatten(mf)
		if err := checkSamples(f); err != nil {
			return nil, fmt.Errorf("family %s: %w", name, err)
		}
		fs[name] = f
	}
	return fs, nil
}

// checkType rejects untyped families (a sample without # TYPE, or one
// outside its family) and malformed histograms.
func checkType(mf *dto.MetricFamily) error {
	switch mf.GetType() {
	case dto.MetricType_UNTYPED:
		return errors.New("no TYPE")
	case dto.MetricType_HISTOGRAM:
		for _, m := range mf.GetMetric() {
			if err := checkHistogram(m.GetHistogram()); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkHistogram(h *dto.Histogram) error {
	bs := h.GetBucket()
	if len(bs) == 0 || !math.IsInf(bs[len(bs)-1].GetUpperBound(), 1) {
		return errors.New("no +Inf bucket")
	}
	for i := 1; i < len(bs); i++ {
		if bs[i].GetUpperBound() <= bs[i-1].GetUpperBound() || bucketCount(bs[i]) < bucketCount(bs[i-1]) {
			return errors.New("buckets not increasing and cumulative")
		}
	}
	if n := bucketCount(bs[len(bs)-1]); n != sampleCount(h) {
		return fmt.Errorf("+Inf bucket %v != _count %v", n, sampleCount(h))
	}
	return nil
}

// bucketCount and sampleCount read integer or float counts alike.
func bucketCount(b *dto.Bucket) float64 {
	return float64(b.GetCumulativeCount()) + b.GetCumulativeCountFloat()
}

func sampleCount(h *dto.Histogram) float64 {
	return float64(h.GetSampleCount()) + h.GetSampleCountFloat()
}

// flatten turns a parsed family back into its wire samples.
func flatten(mf *dto.MetricFamily) *Family {
	f := &Family{Name: mf.GetName(), Help: mf.GetHelp(), Type: strings.ToLower(mf.GetType().String())}
	for _, m := range mf.GetMetric() {
		f.Samples = append(f.Samples, samplesOf(f.Name, mf.GetType(), m)...)
	}
	return f
}

func samplesOf(name string, typ dto.MetricType, m *dto.Metric) []Sample {
	labels := map[string]string{}
	for _, lp := range m.GetLabel() {
		labels[lp.GetName()] = lp.GetValue()
	}
	one := func(suffix string, v float64, extra ...string) Sample {
		l := maps.Clone(labels)
		for i := 0; i+1 < len(extra); i += 2 {
			l[extra[i]] = extra[i+1]
		}
		return Sample{Name: name + suffix, Labels: l, Value: v}
	}
	switch typ {
	case dto.MetricType_COUNTER:
		return []Sample{one("", m.GetCounter().GetValue())}
	case dto.MetricType_GAUGE:
		return []Sample{one("", m.GetGauge().GetValue())}
	case dto.MetricType_HISTOGRAM:
		return histogramSamples(m.GetHistogram(), one)
	case dto.MetricType_SUMMARY:
		return summarySamples(m.GetSummary(), one)
	}
	return []Sample{one("", m.GetUntyped().GetValue())}
}

type sampleFunc func(suffix string, v float64, extra ...string) Sample

// histogramSamples are the cumulative buckets, then _sum and _count.
func histogramSamples(h *dto.Histogram, one sampleFunc) []Sample {
	var out []Sample
	for _, b := range h.GetBucket() {
		out = append(out, one("_bucket", bucketCount(b), "le", FormatFloat(b.GetUpperBound())))
	}
	return append(out, one("_sum", h.GetSampleSum()), one("_count", sampleCount(h)))
}

func summarySamples(s *dto.Summary, one sampleFunc) []Sample {
	var out []Sample
	for _, q := range s.GetQuantile() {
		out = append(out, one("", q.GetValue(), "quantile", FormatFloat(q.GetQuantile())))
	}
	return append(out, one("_sum", s.GetSampleSum()), one("_count", float64(s.GetSampleCount())))
}

// checkSamples rejects repeated series and negative counters.
func checkSamples(f *Family) error {
	seen := map[string]bool{}
	for _, s := range f.Samples {
		key := seriesKey(s)
		if seen[key] {
			return fmt.Errorf("duplicate series %s", key)
		}
		seen[key] = true
		if f.Type == "counter" && s.Value < 0 {
			return fmt.Errorf("negative counter %s", key)
		}
	}
	return nil
}

func seriesKey(s Sample) string {
	keys := make([]string, 0, len(s.Labels))
	for k, v := range s.Labels {
		keys = append(keys, k+"="+strconv.Quote(v))
	}
	slices.Sort(keys)
	return s.Name + "{" + strings.Join(keys, ",") + "}"
}

// FormatFloat renders a value as the text format does (+Inf, 0.25, 1).
func FormatFloat(v float64) string {
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
