package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// root is the repository's top directory, seen from this package.
const root = "../.."

// docFiles are the Markdown files whose links are checked: README.md,
// BENCHMARKS.md, CHANGELOG.md and docs/*.md, as paths relative to root.
func docFiles(t *testing.T) []string {
	files := []string{"README.md", "BENCHMARKS.md", "CHANGELOG.md"}
	matches, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	for _, m := range matches {
		rel, err := filepath.Rel(root, m)
		require.NoError(t, err)
		files = append(files, filepath.ToSlash(rel))
	}
	return files
}

func readRepoFile(t *testing.T, rel string) string {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	require.NoError(t, err)
	return string(b)
}

// walkGo calls fn for every .go file of the repository (relative path and
// directory), skipping hidden directories and testdata.
func walkGo(t *testing.T, fn func(rel, dir string)) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, ".go") {
			fn(rel, filepath.ToSlash(filepath.Dir(rel)))
		}
		return nil
	})
	require.NoError(t, err)
}
