// Package testlog gives tests an hclog.Logger that writes to t.Log, the
// project's one way of routing server logs into test output. Lines logged
// after the test's cleanups have run are dropped instead of panicking, so
// goroutines that outlive a test by a moment cannot fail it.
package testlog

import (
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// New returns a debug-level logger named name that writes to t.Log until
// the test ends.
func New(t testing.TB, name string) hclog.Logger {
	w := &writer{t: t}
	t.Cleanup(w.stop)
	return hclog.New(&hclog.LoggerOptions{Name: name, Level: hclog.Debug, Output: w, DisableTime: true})
}

type writer struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func (w *writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func (w *writer) stop() {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
}
