package docs

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	testFuncRe = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)\w+)\(`)
	docNameRe  = regexp.MustCompile(`\b((?:Test|Benchmark|Fuzz)[A-Z]\w*)`)
)

// TestDocsNameExistingTests: every test, benchmark or fuzz target that
// README.md, BENCHMARKS.md or docs/*.md names by its Go name exists, or
// is the prefix of one (a -run pattern such as TestFault). A renamed test
// fails here until the docs name it anew.
func TestDocsNameExistingTests(t *testing.T) {
	var funcs []string
	walkGo(t, func(rel, _ string) {
		if strings.HasSuffix(rel, "_test.go") {
			for _, m := range testFuncRe.FindAllStringSubmatch(readRepoFile(t, rel), -1) {
				funcs = append(funcs, m[1])
			}
		}
	})
	sort.Strings(funcs)
	var gone []string
	for _, file := range docFiles(t) {
		if file == "CHANGELOG.md" {
			continue // names what a release did, as it was called then
		}
		seen := map[string]bool{}
		for _, m := range docNameRe.FindAllStringSubmatch(readRepoFile(t, file), -1) {
			if name := m[1]; !seen[name] && !namesAFunc(funcs, name) {
				gone = append(gone, file+": "+name)
			}
			seen[m[1]] = true
		}
	}
	require.Empty(t, gone, "the docs name tests that no _test.go file has: write the new name")
}

// namesAFunc reports whether name is a function of sorted funcs or the
// prefix of one.
func namesAFunc(funcs []string, name string) bool {
	i := sort.SearchStrings(funcs, name)
	return i < len(funcs) && strings.HasPrefix(funcs[i], name)
}
