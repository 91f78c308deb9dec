package namesrv

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/goldenfile"
)

// javaTracesDir is the folder of Java 5.3.3 route-table traces beside the
// repository (shared/golden); RMQ_JAVA_TRACES names another one.
const javaTracesDir = "routeinfo-java-5.3.3"

// javaTrace is one trace: its operations and Java's answers after each.
type javaTrace struct {
	name     string
	universe traceUniverse
	ops      []traceOp
	answers  [][]string // answers[i]: the lines Java printed after ops[i]
}

// traceUniverse is what the answers are printed for.
type traceUniverse struct {
	Topics   []string `json:"topics"`
	Clusters []string `json:"clusters"`
	Names    []string `json:"names"`
}

// traceOp is one operation of a trace (its README has the table).
type traceOp struct {
	Op      string  `json:"op"`
	Cluster string  `json:"cluster"`
	Addr    string  `json:"addr"`
	Name    string  `json:"name"`
	ID      int64   `json:"id"`
	HA      *string `json:"ha"`
	Zone    *string `json:"zone"`
	EAM     *bool   `json:"eam"`
	Timeout *int64  `json:"timeout"`
	Body    *string `json:"body"`
	Conn    string  `json:"conn"`
	Topic   string  `json:"topic"`
	Delete  bool    `json:"delete"`
	Acting  bool    `json:"acting"`
	Notify  bool    `json:"notify"`
}

// javaTracesPath returns the trace folder, or "" when there is none.
func javaTracesPath(t *testing.T) string {
	if dir := os.Getenv("RMQ_JAVA_TRACES"); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("RMQ_JAVA_TRACES=%s: %v", dir, err)
		}
		return dir
	}
	dir, err := goldenfile.Path(javaTracesDir)
	if errors.Is(err, goldenfile.ErrNotFound) {
		return ""
	}
	require.NoError(t, err)
	return dir
}

// loadJavaTraces reads every traceN.ops.jsonl of dir with its answers.
func loadJavaTraces(t *testing.T, dir string) []*javaTrace {
	files, err := filepath.Glob(filepath.Join(dir, "*.ops.jsonl"))
	require.NoError(t, err)
	sort.Strings(files)
	var out []*javaTrace
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".ops.jsonl")
		tr := &javaTrace{name: name}
		readTraceOps(t, f, tr)
		tr.answers = readTraceAnswers(t, filepath.Join(dir, name+".java.txt.gz"), len(tr.ops))
		out = append(out, tr)
	}
	return out
}

func readTraceOps(t *testing.T, path string, tr *javaTrace) {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	first := true
	for sc.Scan() {
		if first {
			require.NoError(t, json.Unmarshal(sc.Bytes(), &tr.universe), path)
			first = false
			continue
		}
		var op traceOp
		require.NoError(t, json.Unmarshal(sc.Bytes(), &op), path)
		tr.ops = append(tr.ops, op)
	}
	require.NoError(t, sc.Err())
}

// readTraceAnswers splits Java's answers by their "#N op result" lines.
func readTraceAnswers(t *testing.T, path string, n int) [][]string {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 16<<20)
	var out [][]string
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			out = append(out, nil)
		}
		require.NotEmpty(t, out, "%s: an answer before the first step", path)
		out[len(out)-1] = append(out[len(out)-1], line)
	}
	require.NoError(t, sc.Err())
	require.Len(t, out, n, "%s: one answer block per operation", path)
	return out
}
