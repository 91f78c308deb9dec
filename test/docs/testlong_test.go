package docs

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var longTimeoutRe = regexp.MustCompile(`(?m)^LONG_TIMEOUT\s*\?=\s*(\S+)`)

// TestTestLongCommandsMatchMakefile: docs/testing.md shows the commands of
// `make test-long` as the Makefile runs them ($(GO) as go, the tag and
// LONG_TIMEOUT's default written out), each on a line of its own.
func TestTestLongCommandsMatchMakefile(t *testing.T) {
	mk := readRepoFile(t, "Makefile")
	m := longTimeoutRe.FindStringSubmatch(mk)
	require.NotNil(t, m, "no LONG_TIMEOUT default in the Makefile")
	expand := strings.NewReplacer("$(GO)", "go", "$(TAGS_CTRL)", "embedded_controller", "$(LONG_TIMEOUT)", m[1])
	doc := map[string]bool{}
	for _, line := range strings.Split(readRepoFile(t, "docs/testing.md"), "\n") {
		doc[strings.TrimSpace(line)] = true
	}
	var recipe, missing []string
	in := false
	for _, line := range strings.Split(mk, "\n") {
		switch {
		case strings.HasPrefix(line, "test-long:"):
			in = true
		case in && strings.HasPrefix(line, "\t"):
			recipe = append(recipe, expand.Replace(strings.TrimSpace(line)))
		case in:
			in = false
		}
	}
	require.NotEmpty(t, recipe, "no test-long recipe in the Makefile")
	for _, cmd := range recipe {
		if !doc[cmd] {
			missing = append(missing, cmd)
		}
	}
	require.Empty(t, missing, "commands of make test-long that docs/testing.md does not show as run")
}
