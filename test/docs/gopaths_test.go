package docs

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// goPathRe matches a Go file named in backquotes: `dir/file.go`,
// `file.go` or `dir/file.go:123`.
var goPathRe = regexp.MustCompile("`([\\w./-]+\\.go)(?::\\d+)?`")

// TestDocsNameExistingGoFiles: every Go file that README.md,
// BENCHMARKS.md or docs/*.md names in backquotes exists: a path from the
// repository root (`controller/election_loop.go`), or a bare file name
// that some package has. A moved or renamed file fails here until the
// docs name it anew.
func TestDocsNameExistingGoFiles(t *testing.T) {
	bases := map[string]bool{}
	walkGo(t, func(rel, _ string) { bases[path.Base(filepath.ToSlash(rel))] = true })
	var gone []string
	for _, file := range docFiles(t) {
		if file == "CHANGELOG.md" {
			continue // names what a release did, as it was then
		}
		for _, m := range goPathRe.FindAllStringSubmatch(readRepoFile(t, file), -1) {
			if !goFileExists(bases, m[1]) {
				gone = append(gone, file+": "+m[1])
			}
		}
	}
	require.Empty(t, gone, "the docs name Go files that do not exist: write the new path")
}

func goFileExists(bases map[string]bool, name string) bool {
	if !strings.Contains(name, "/") {
		return bases[name] || strings.HasPrefix(name, "_") // `_default.go`: a suffix, not a file
	}
	_, err := os.Stat(filepath.Join(root, filepath.FromSlash(name)))
	return err == nil
}
