package testlog

import (
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// Lines keeps what a Capture logger wrote, for a test to read (count
// warnings, wait for a line). It is safe for concurrent use.
type Lines struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p.
func (l *Lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything written so far.
func (l *Lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Count returns how many times s was written.
func (l *Lines) Count(s string) int { return strings.Count(l.String(), s) }

// Has reports whether s was written.
func (l *Lines) Has(s string) bool { return strings.Contains(l.String(), s) }

// Capture returns a logger named name at level that writes to t.Log, as
// New does, and to the returned Lines.
func Capture(t testing.TB, name string, level hclog.Level) (hclog.Logger, *Lines) {
	w := &writer{t: t}
	t.Cleanup(w.stop)
	lines := &Lines{}
	return hclog.New(&hclog.LoggerOptions{Name: name, Level: level, Output: io.MultiWriter(w, lines),
		DisableTime: true}), lines
}
