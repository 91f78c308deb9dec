package docs

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	fuzzFuncRe = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)
	fuzzLineRe = regexp.MustCompile(`-fuzz \^?(Fuzz\w+)\$? .*?(\./\S+)\s*$`)
	buildTagRe = regexp.MustCompile(`(?m)^//go:build (.*)$`)
)

// fuzzTarget is one fuzz function: its package directory and whether its
// file builds only with -tags embedded_controller.
type fuzzTarget struct {
	dir    string
	tagged bool
}

// TestMakeFuzzRunsEveryFuzzTarget: `make fuzz` runs every `func Fuzz` of the
// repository, in its package and under the tag its file needs, and names
// no target that is gone.
func TestMakeFuzzRunsEveryFuzzTarget(t *testing.T) {
	inSource := map[string]fuzzTarget{}
	walkGo(t, func(rel, dir string) {
		if !strings.HasSuffix(rel, "_test.go") {
			return
		}
		text := readRepoFile(t, rel)
		tagged := false
		if m := buildTagRe.FindStringSubmatch(text); m != nil {
			tagged = strings.Contains(m[1], "embedded_controller") && !strings.Contains(m[1], "!embedded_controller")
		}
		for _, m := range fuzzFuncRe.FindAllStringSubmatch(text, -1) {
			inSource[m[1]] = fuzzTarget{"./" + dir, tagged}
		}
	})
	inMake := makeFuzzTargets(t)
	var missing, wrong, gone []string
	for name, want := range inSource {
		got, ok := inMake[name]
		switch {
		case !ok:
			missing = append(missing, name+" ("+want.dir+")")
		case got != want:
			wrong = append(wrong, name)
		}
	}
	for name := range inMake {
		if _, ok := inSource[name]; !ok {
			gone = append(gone, name)
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "fuzz targets `make fuzz` does not run: add a line to the Makefile's fuzz target")
	require.Empty(t, wrong, "fuzz targets `make fuzz` runs in the wrong package or without the tag their file needs")
	require.Empty(t, gone, "`make fuzz` names fuzz targets no test file has")
	require.NotEmpty(t, inSource)
}

// makeFuzzTargets reads the recipe of the Makefile's fuzz target.
func makeFuzzTargets(t *testing.T) map[string]fuzzTarget {
	out := map[string]fuzzTarget{}
	inFuzz := false
	for _, line := range strings.Split(readRepoFile(t, "Makefile"), "\n") {
		switch {
		case strings.HasPrefix(line, "fuzz:"):
			inFuzz = true
		case inFuzz && !strings.HasPrefix(line, "\t"):
			inFuzz = false
		case inFuzz:
			if m := fuzzLineRe.FindStringSubmatch(line); m != nil {
				out[m[1]] = fuzzTarget{strings.TrimSuffix(m[2], "/"), strings.Contains(line, "-tags")}
			}
		}
	}
	require.NotEmpty(t, out, "no fuzz lines found in the Makefile")
	return out
}
