package docs

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	// trackerRe is a tracker's id in prose: the word issue, task or defect
	// and a number.
	trackerRe = regexp.MustCompile(`(?i)\b(?:issue|task|defect)s? #?[0-9]+\b`)
	// roundRe is a review round in a name: attack3, round_2.
	roundRe = regexp.MustCompile(`(?i)(?:attack|round)_?[0-9]`)
	// hexRe is a run that may be a commit id; commitLike checks it mixes
	// letters and digits.
	hexRe = regexp.MustCompile(`[0-9a-f]{7,40}`)
)

func commitLike(s string) bool {
	for _, m := range hexRe.FindAllString(s, -1) {
		if strings.ContainsAny(m, "0123456789") && strings.ContainsAny(m, "abcdef") {
			return true
		}
	}
	return false
}

// TestNamesCarryNoTrackerOrCommitIDs: no Go file or doc names a tracker's
// issue, and no file name or test name carries a review round or a commit
// id; a name says what the file or test checks. BENCHMARKS.md and
// CHANGELOG.md may name commits (the baselines a figure was measured
// against); fuzz corpora are named by their hashes.
func TestNamesCarryNoTrackerOrCommitIDs(t *testing.T) {
	var bad []string
	walkGo(t, func(rel, _ string) {
		if m := trackerRe.FindString(readRepoFile(t, rel)); m != "" {
			bad = append(bad, rel+": "+m)
		}
		if strings.HasSuffix(rel, "_test.go") {
			for _, m := range testFuncRe.FindAllStringSubmatch(readRepoFile(t, rel), -1) {
				if roundRe.MatchString(m[1]) || commitLike(m[1]) {
					bad = append(bad, rel+": "+m[1])
				}
			}
		}
	})
	for _, file := range docFiles(t) {
		if m := trackerRe.FindString(readRepoFile(t, file)); m != "" {
			bad = append(bad, file+": "+m)
		}
	}
	bad = append(bad, badFileNames(t)...)
	require.Empty(t, bad, "name what is checked, not the tracker, round or commit it came from")
}

// badFileNames returns the repository's file names with a review round or
// a commit id, skipping hidden directories, bin and fuzz corpora.
func badFileNames(t *testing.T) []string {
	var bad []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if d.IsDir() && rel != "." && (strings.HasPrefix(name, ".") || name == "bin" ||
			strings.HasSuffix(rel, "testdata/fuzz")) {
			return filepath.SkipDir
		}
		if rel != "." && (roundRe.MatchString(name) || commitLike(name)) {
			bad = append(bad, rel)
		}
		return nil
	})
	require.NoError(t, err)
	return bad
}
