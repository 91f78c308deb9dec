package monotime

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// wallUses are the lines of the servers and tools allowed to turn a time
// into wall-clock numbers or drop its monotonic reading (file: trimmed
// line: why): none of them decides liveness, idle, expiry, a rate limit or
// a reload interval.
var wallUses = map[string]map[string]string{
	"admin/controller.go": {
		"DesignateElect: true, InvokeTime: time.Now().UnixMilli()}":             "invokeTime on the wire",
		"IsCleanLivingBroker: cleanLiving, InvokeTime: time.Now().UnixMilli()}": "invokeTime on the wire",
	},
	"cmd/mqadmin/cluster.go": {
		"s.hour = float64(time.Now().UnixMilli()-ts) / 1000 / 60 / 60": "display of a broker's wall timestamp",
	},
	"cmd/controller/restore_embedded.go": {
		`opts.restore, b.Index, b.Taken.UTC().Format("2006-01-02T15:04:05Z"), b.Sum(), cfg.ControllerStorePath,`: "display of when a backup was taken",
	},
	"cmd/mqadmin/progress.go": {
		"left := max(p.limit-res.Elapsed, 0).Round(time.Second)": "display of a duration",
	},
	"controller/members_drift.go": {
		`"waited", time.Since(w.startedAt).Round(time.Second))`: "display of a duration",
	},
	"internal/backupfile/backupfile.go": {
		"binary.BigEndian.PutUint64(out[28:], uint64(b.Taken.UnixMilli()))":                                              "when a backup was taken, a record only",
		"Taken: time.UnixMilli(int64(binary.BigEndian.Uint64(enc[28:]))), Data: slices.Clone(body[backupHeader:])}, nil": "when a backup was taken, a record only",
	},
	"cmd/mqadmin/checks.go": {
		`e.printf("route of %s ready on %d NameServers after %s\n", topic, len(res.Statuses), res.Elapsed.Round(time.Millisecond))`: "display of a duration",
	},
	"config/filemode.go": {
		`name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatInt(time.Now().UnixNano()+int64(i), 36))`: "a temporary file name",
	},
	"controller/liveness/table.go": {
		"func (m *Table) wallMillis() int64 { return m.opts.Clock.Now().UnixMilli() }": "LastUpdateMillis, display only",
	},
	"internal/certreload/load.go": {
		`return fmt.Errorf("%w: not valid before %s", ErrNotValidNow, c.NotBefore.UTC().Format(time.RFC3339))`: "a certificate's validity in an error",
		`return fmt.Errorf("%w: expired at %s", ErrNotValidNow, c.NotAfter.UTC().Format(time.RFC3339))`:        "a certificate's validity in an error",
	},
	"internal/lograte/logratetest/lines.go": {
		`t.Logf("path %-42q x%d: %4d log lines (%v)", p.Name, n, per[p.Name], time.Since(began).Round(time.Millisecond))`: "test support: display of a duration",
	},
	"internal/monotime/monotime.go": {
		"func NewFake(wall time.Time) *Fake { return &Fake{wall: wall.Round(0), mono: Mono(time.Hour)} }": "Fake's wall reading models a stepped wall clock",
	},
	"internal/monotime/shifted.go": {
		"return time.Now().Add(time.Duration(s.offset.Load())).Round(0)": "Shifted's wall reading models a stepped wall clock",
	},
	"kv/import.go": {
		"m := importMarker{Source: path, Namespaces: len(table), ImportedAt: time.Now().UTC()}": "when the import ran, a record only",
	},
	"namesrv/route/register.go": {
		"dv.Timestamp = m.opts.Clock.Now().UnixMilli()": "a DataVersion without timestamp stamped as Java stamps it; compared for equality only",
	},
	"namesrv/metrics.go": {
		"wait.Round(time.Millisecond), s.readyWait.seconds())": "display of a duration",
	},
	"raftstore/peerlog.go": {
		`"outage_failed", st.outage, "down_for", now.Sub(st.began).Round(time.Millisecond))`: "display of a monotonic duration",
	},
	"remoting/conn_io.go": {
		"_ = c.nc.SetReadDeadline(time.Unix(1, 0))": "a deadline in the past wakes a draining read",
	},
}

// TestNoWallClockDecisions keeps wall-clock numbers, and the calls that
// drop Go's monotonic reading (wallLines), out of the module's
// non-test code outside wallUses (test/ and tools/ are test harnesses and
// load generators): liveness, idle, expiry and reload decisions use
// monotime readings or time.Time values carrying Go's monotonic reading.
func TestNoWallClockDecisions(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "test" || rel == "tools" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, n := range wallLines(string(b)) {
			line := strings.TrimSpace(strings.Split(string(b), "\n")[n-1])
			if wallUses[rel][line] == "" {
				found = append(found, rel+": "+line+" (line "+strconv.Itoa(n)+")")
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, found, "wall-clock numbers outside wallUses: decide on monotime, or add the line with its reason")
}

// wallMethods drop Go's monotonic reading (Round, Truncate, UTC, Local,
// In), turn a time into wall-clock numbers (Unix*) or write it out and
// read it back (the encodings keep no monotonic reading); Round and
// Truncate of a time.Duration match too (the guard reads syntax, not
// types) and are listed in wallUses.
var wallMethods = map[string]bool{"Unix": true, "UnixMilli": true, "UnixMicro": true, "UnixNano": true,
	"Round": true, "Truncate": true, "UTC": true, "Local": true, "In": true,
	"MarshalBinary": true, "MarshalJSON": true, "MarshalText": true, "GobEncode": true,
	"UnmarshalBinary": true, "UnmarshalJSON": true, "UnmarshalText": true, "GobDecode": true}

// wallFuncs of package time build a time from wall-clock numbers or text
// (none has a monotonic reading).
var wallFuncs = map[string]bool{"Unix": true, "UnixMilli": true, "UnixMicro": true, "Date": true,
	"Parse": true, "ParseInLocation": true}

// wallLines returns the (1-based) lines of src where a time is turned
// into wall-clock numbers, loses its monotonic reading, or is built from
// wall numbers: every selector of one of wallMethods (calls, method values
// and expressions, split lines included) but on another package, and
// time's wallFuncs. Source that does not parse is reported at line 1.
func wallLines(src string) []int {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "src.go", src, parser.SkipObjectResolution)
	if err != nil {
		return []int{1}
	}
	pkgs := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		pkgs[name] = path
	}
	seen, called := map[int]bool{}, map[*ast.SelectorExpr]bool{}
	var out []int
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
				called[sel] = true
			}
		}
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if wallSelector(sel, pkgs, called[sel]) {
			if line := fset.Position(sel.Pos()).Line; !seen[line] {
				seen[line] = true
				out = append(out, line)
			}
		}
		return true
	})
	slices.Sort(out)
	return out
}

// wallSelector reports whether sel is one of time's wallFuncs, or one of
// wallMethods on a value: Unix* always (a call or a method value), the
// others when called or as a method expression of time.Time (a field
// named Local is not a time).
func wallSelector(sel *ast.SelectorExpr, pkgs map[string]string, called bool) bool {
	name := sel.Sel.Name
	if id, ok := sel.X.(*ast.Ident); ok && pkgs[id.Name] != "" {
		return pkgs[id.Name] == "time" && wallFuncs[name]
	}
	if !wallMethods[name] {
		return false
	}
	if strings.HasPrefix(name, "Unix") || called {
		return true
	}
	x, ok := sel.X.(*ast.SelectorExpr)
	return ok && x.Sel.Name == "Time"
}

// wallBypasses are ways to drop Go's monotonic reading, or to take a
// decision on wall numbers, that TestNoWallClockDecisions must see (the
// line of each is marked // want).
const wallBypasses = `package p

import "time"

func f(now time.Time, d time.Duration) {
	_ = now.Truncate(time.Minute) // want
	_ = now.Round(0) // want
	_ = now.UTC() // want
	_ = now.Local() // want
	_ = now.In(time.UTC) // want
	_ = now. // want
		UnixMilli()
	_ = time.Time.UnixMilli // want
	_ = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // want
	_, _ = time.Parse(time.RFC3339, "x") // want
	_ = time.UnixMilli(1) // want
	_ = now.Unix() // want
	_, _ = now.MarshalJSON() // want
	_ = now.UnmarshalText(nil) // want
	_, _ = now.GobEncode() // want
	_ = now.Add(d).Before(now) // fine: monotonic
	_ = time.Since(now) // fine
}
`

// TestGuardSeesEveryWallConversion: the guard matched Unix,
// UnixMilli, UnixNano and time.Unix written on one line only, so
// Truncate, Round(0), UTC, Local and In (each drops the monotonic
// reading: the ACL denial log's minute passed it), time.Date, time.Parse,
// a method value and a call split over two lines went unseen; so did a
// time written out and read back (MarshalJSON, UnmarshalText, GobEncode:
// no monotonic reading survives).
func TestGuardSeesEveryWallConversion(t *testing.T) {
	var want []int
	for i, line := range splitLines(wallBypasses) {
		if len(line) > 7 && line[len(line)-7:] == "// want" {
			want = append(want, i+1)
		}
	}
	require.Equal(t, want, wallLines(wallBypasses))
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}
