package docs

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

var (
	linkRe    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRe = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlIDRe  = regexp.MustCompile(`<a (?:name|id)="([^"]+)"`)
)

// TestDocLinksResolve: every relative link of README.md, BENCHMARKS.md,
// CHANGELOG.md and docs/*.md names a file or directory of the repository,
// and every #anchor a heading of the page it points at (GitHub's slugs).
func TestDocLinksResolve(t *testing.T) {
	anchors := map[string]map[string]bool{}
	var broken []string
	for _, file := range docFiles(t) {
		text := readRepoFile(t, file)
		for _, l := range proseLines(text) {
			for _, m := range linkRe.FindAllStringSubmatch(l.text, -1) {
				if msg := checkLink(t, file, m[1], anchors); msg != "" {
					broken = append(broken, file+":"+strconv.Itoa(l.n)+": "+m[1]+": "+msg)
				}
			}
		}
	}
	require.Empty(t, broken, "broken links")
}

func checkLink(t *testing.T, file, link string, anchors map[string]map[string]bool) string {
	if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
		return ""
	}
	target, anchor, _ := strings.Cut(link, "#")
	if target == "" {
		target = file
	} else {
		target = path.Clean(path.Join(path.Dir(file), target))
	}
	st, err := os.Stat(filepath.Join(root, filepath.FromSlash(target)))
	if err != nil {
		return "no such file"
	}
	if anchor == "" {
		return ""
	}
	if st.IsDir() || !strings.HasSuffix(target, ".md") {
		return "anchor on a file that is not Markdown"
	}
	if anchors[target] == nil {
		anchors[target] = headingAnchors(readRepoFile(t, target))
	}
	if !anchors[target][anchor] {
		return "no such anchor in " + target
	}
	return ""
}

type line struct {
	n    int // from 1
	text string
}

// proseLines returns the lines outside fenced code, in order.
func proseLines(text string) []line {
	var out []line
	fenced := false
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line{i + 1, l})
		}
	}
	return out
}

// headingAnchors returns the anchors GitHub gives a page's headings (a
// repeated slug gets -1, -2, ...), plus explicit <a name> / <a id> ones.
func headingAnchors(text string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, l := range proseLines(text) {
		for _, m := range htmlIDRe.FindAllStringSubmatch(l.text, -1) {
			out[m[1]] = true
		}
		m := headingRe.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		s := slug(m[2])
		if k := seen[s]; k > 0 {
			out[s+"-"+strconv.Itoa(k)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// slug is GitHub's heading anchor: lower case, letters, digits, '-' and
// '_' kept, spaces turned into '-', everything else dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestSlugMatchesGitHub(t *testing.T) {
	require.Equal(t, "the-controller--tags-embedded_controller", slug("The Controller (`-tags embedded_controller`)"))
	require.Equal(t, "31-a-route-lookup-105", slug("3.1 A route lookup (105)"))
	require.Equal(t, "remote-updates-update_namesrv_config-318-update_controller_config-1009",
		slug("Remote updates (UPDATE_NAMESRV_CONFIG 318, UPDATE_CONTROLLER_CONFIG 1009)"))
}
