package docs

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var metricRe = regexp.MustCompile(`\brocketmq_[a-z0-9_]*[a-z0-9]`)

// metricPrefixes are the family prefixes the source joins names to
// (metrics.NamesrvPrefix, metrics.ControllerPrefix, and the Raft families'
// raftPrefix of metrics/controller_source.go).
var metricPrefixes = []string{"rocketmq_namesrv", "rocketmq_controller", "rocketmq_controller_raft"}

// TestDocsNameExportedMetrics: every rocketmq_* metric that README.md,
// BENCHMARKS.md or docs/*.md names is named by the non-test source, whole
// or as a prefix's suffix ("_warmup_forwards_total" after NamesrvPrefix).
// A renamed metric fails here until the docs name it anew.
func TestDocsNameExportedMetrics(t *testing.T) {
	var src strings.Builder
	walkGo(t, func(rel, _ string) {
		if !strings.HasSuffix(rel, "_test.go") {
			src.WriteString(readRepoFile(t, rel))
		}
	})
	code := src.String()
	var gone []string
	for _, file := range docFiles(t) {
		if file == "CHANGELOG.md" {
			continue
		}
		seen := map[string]bool{}
		text := readRepoFile(t, file)
		for _, at := range metricRe.FindAllStringIndex(text, -1) {
			name := text[at[0]:at[1]]
			if strings.HasPrefix(text[at[1]:], ".go") {
				continue // a file name (rocketmq_header.go)
			}
			if !seen[name] && !sourceNamesMetric(code, name) {
				gone = append(gone, file+": "+name)
			}
			seen[name] = true
		}
	}
	require.Empty(t, gone, "the docs name metrics the source does not export: write the new name")
}

func sourceNamesMetric(code, name string) bool {
	if strings.Contains(code, `"`+name+`"`) || metricPrefixOf(name) {
		return true
	}
	for _, p := range metricPrefixes {
		rest, ok := strings.CutPrefix(name, p+"_")
		if ok && (strings.Contains(code, `"_`+rest+`"`) || strings.Contains(code, `"`+rest+`"`)) {
			return true
		}
	}
	return false
}

// metricPrefixOf reports whether name is a family prefix itself, or a
// prefix followed by '_' (a pattern such as rocketmq_controller_*).
func metricPrefixOf(name string) bool {
	for _, p := range metricPrefixes {
		if name == p {
			return true
		}
	}
	return false
}
