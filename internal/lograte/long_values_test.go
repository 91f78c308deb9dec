package lograte

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

// address is a named string type, as hashicorp/raft's ServerAddress and
// ServerID are: raft logs a vote's candidate address as one.
type address string

// stringer is a value written through its String method.
type stringer struct{ s string }

func (s stringer) String() string { return s.s }

// nilErr has a pointer receiver: a typed nil of it is a non-nil error
// whose Error method panics.
type nilErr struct{ msg string }

func (e *nilErr) Error() string { return e.msg }

// buffer collects what a logger writes (not to t.Log: the values are MiBs).
type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Len()
}

// TestAttackWrapCutsEveryKindOfLongValue: a value a stranger chose is cut
// to MaxValue bytes whatever its Go type: a named string type (raft's
// ServerAddress: the candidate of a stranger's vote), a []string, a
// fmt.Stringer, an hclog.Fmt, a slice of []byte, in both output formats;
// a typed nil error does not panic.
func TestAttackWrapCutsEveryKindOfLongValue(t *testing.T) {
	big := strings.Repeat("n", 1<<20)
	values := map[string]any{
		"named string": address(big),
		"[]string":     []string{big},
		"stringer":     stringer{big},
		"hclog.Fmt":    hclog.Fmt("%s", big),
		"[][]byte":     [][]byte{[]byte(big)},
		"map":          map[string]string{"k": big},
		"pointer":      &stringer{big},
	}
	var long []string
	for _, json := range []bool{false, true} {
		for _, name := range slices.Sorted(maps.Keys(values)) {
			v := values[name]
			var out buffer
			l := Wrap(hclog.New(&hclog.LoggerOptions{Name: "x", Output: &out, JSONFormat: json}))
			l.Warn("rejecting vote request since node is not in configuration", "from", v)
			t.Logf("json=%v %-13s: %d bytes written", json, name, out.Len())
			if out.Len() >= 4*MaxValue {
				long = append(long, fmt.Sprintf("json=%v %s: %d bytes", json, name, out.Len()))
			}
		}
	}
	require.Empty(t, long, "lines longer than %d bytes", 4*MaxValue)
	for _, json := range []bool{false, true} {
		var out buffer
		l := Wrap(hclog.New(&hclog.LoggerOptions{Name: "x", Output: &out, JSONFormat: json}))
		var e *nilErr
		require.NotPanics(t, func() { l.Warn("typed nil error", "error", e) }, "json=%v", json)
		require.NotPanics(t, func() { l.Warn("odd arguments", "error") })
		require.NotPanics(t, func() { l.Warn("nil values", "v", nil, "e", error(nil), "f", hclog.Fmt("")) })
		require.NotPanics(t, func() { l.Warn("not a format", "f", hclog.Format{7, big}) })
		t.Logf("json=%v: %s", json, out.b.String())
		require.Less(t, out.Len(), 8*MaxValue)
	}
}

// TestWrapKeepsStacks: a stack (hclog.CapturedStacktrace) keeps up to
// MaxStack bytes, so a panic's frames below the recover machinery are
// written; past MaxStack it is cut like any value.
func TestWrapKeepsStacks(t *testing.T) {
	var out buffer
	l := Wrap(hclog.New(&hclog.LoggerOptions{Name: "x", Output: &out, JSONFormat: true}))
	l.Error("handler panicked", "stack", hclog.CapturedStacktrace(strings.Repeat("s", 8<<10)))
	require.Greater(t, out.Len(), 8<<10)
	l.Error("handler panicked", "stack", hclog.CapturedStacktrace(strings.Repeat("s", 1<<20)))
	require.Less(t, out.Len(), 8<<10+MaxStack+1024)
}

// TestAttackWrapCutsWithValues: values given to With (a per-connection
// sub-logger's remote address) are written on every line of that logger
// and are cut like the line's own.
func TestAttackWrapCutsWithValues(t *testing.T) {
	var out buffer
	l := Wrap(hclog.New(&hclog.LoggerOptions{Name: "x", Output: &out}))
	l.With("remote", address(strings.Repeat("r", 1<<20))).Warn("connection closed")
	t.Logf("%d bytes written", out.Len())
	require.Less(t, out.Len(), 2*MaxValue)
}
