package docs

import (
	"flag"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the import graph block of docs/architecture.md")

const (
	module     = "github.com/rmqgo/nameserver/"
	archDoc    = "docs/architecture.md"
	graphBegin = "<!-- import graph: begin -->"
	graphEnd   = "<!-- import graph: end -->"
)

// importGraph maps every package of the module (its directory) to the
// module packages its non-test files import, under any build tag.
func importGraph(t *testing.T) map[string]map[string]bool {
	graph := map[string]map[string]bool{}
	fset := token.NewFileSet()
	walkGo(t, func(rel, dir string) {
		if strings.HasSuffix(rel, "_test.go") {
			return
		}
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.ImportsOnly)
		require.NoError(t, err)
		if graph[dir] == nil {
			graph[dir] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			if strings.HasPrefix(p, module) {
				graph[dir][strings.TrimPrefix(p, module)] = true
			}
		}
	})
	return graph
}

// renderGraph writes one line per package that imports others of the
// module, then the packages that import none.
func renderGraph(graph map[string]map[string]bool) string {
	var pkgs, leaves []string
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	var b strings.Builder
	b.WriteString("```text\n")
	for _, p := range pkgs {
		var deps []string
		for d := range graph[p] {
			deps = append(deps, d)
		}
		if len(deps) == 0 {
			leaves = append(leaves, p)
			continue
		}
		sort.Strings(deps)
		b.WriteString(p + " ──► " + strings.Join(deps, ", ") + "\n")
	}
	b.WriteString("(nothing of ours) ◄── " + strings.Join(leaves, ", ") + "\n")
	b.WriteString("```\n")
	return b.String()
}

// TestImportGraphMatchesArchitecture: the import graph written in
// docs/architecture.md §2 is the one the source declares. With -update it
// rewrites the block instead.
func TestImportGraphMatchesArchitecture(t *testing.T) {
	want := renderGraph(importGraph(t))
	doc := readRepoFile(t, archDoc)
	start := strings.Index(doc, graphBegin)
	end := strings.Index(doc, graphEnd)
	require.True(t, start >= 0 && end > start, "%s has no %q ... %q block", archDoc, graphBegin, graphEnd)
	start += len(graphBegin) + 1
	if *update {
		doc = doc[:start] + want + doc[end:]
		require.NoError(t, os.WriteFile(filepath.Join(root, archDoc), []byte(doc), 0o644))
		return
	}
	require.Equal(t, want, doc[start:end],
		"the import graph changed: run `go test ./test/docs -run TestImportGraph -update` (or paste the block above) and reread §2 of %s", archDoc)
}

// TestPackageTableNamesEveryPackage: the package table of
// docs/architecture.md §1 names every package of the module, in a
// backquoted name of a row's first cell (`test/*` covers test/ and below),
// and no package that is gone.
func TestPackageTableNamesEveryPackage(t *testing.T) {
	named := packageTable(t)
	var missing, gone []string
	graph := importGraph(t)
	for p := range graph {
		if !covered(p, named) {
			missing = append(missing, p)
		}
	}
	for n := range named {
		if !strings.HasSuffix(n, "/*") && graph[n] == nil {
			gone = append(gone, n)
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "packages the table of %s §1 does not name", archDoc)
	require.Empty(t, gone, "the table of %s §1 names packages that are gone", archDoc)
}

func covered(pkg string, named map[string]bool) bool {
	if named[pkg] {
		return true
	}
	for dir := pkg; dir != "."; dir = filepath.ToSlash(filepath.Dir(dir)) {
		if named[dir+"/*"] {
			return true
		}
	}
	return false
}

// packageTable returns the backquoted names in the first cells of the
// first table of docs/architecture.md.
func packageTable(t *testing.T) map[string]bool {
	named := map[string]bool{}
	inTable := false
	for _, line := range strings.Split(readRepoFile(t, archDoc), "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(line, "|")
		parts := strings.Split(cells[1], "`")
		for i := 1; i < len(parts); i += 2 {
			named[parts[i]] = true
		}
	}
	require.NotEmpty(t, named)
	return named
}
