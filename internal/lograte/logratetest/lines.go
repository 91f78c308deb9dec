package logratetest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/lograte"
)

// Lines counts the lines of a JSON hclog logger by module and message.
type Lines struct {
	mu     sync.Mutex
	total  int
	counts map[string]int // module + ": " + message
	first  map[string]string
}

// Logger returns an Info-level JSON logger named name writing to a new
// Lines (not to t.Log: a flood on the unfixed code writes thousands).
func Logger(name string) (hclog.Logger, *Lines) {
	l := &Lines{counts: make(map[string]int), first: make(map[string]string)}
	return hclog.New(&hclog.LoggerOptions{Name: name, Level: hclog.Info, Output: l, JSONFormat: true}), l
}

// Write counts the lines of p (hclog writes one or more whole lines).
func (l *Lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for line := range strings.SplitSeq(strings.TrimSpace(string(p)), "\n") {
		var m struct {
			Module  string `json:"@module"`
			Message string `json:"@message"`
		}
		_ = json.Unmarshal([]byte(line), &m)
		key := m.Module + ": " + m.Message
		l.total++
		l.counts[key]++
		if _, ok := l.first[key]; !ok {
			l.first[key] = line
		}
	}
	return len(p), nil
}

// Total is the number of lines written.
func (l *Lines) Total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// Counts returns the lines per module and message.
func (l *Lines) Counts() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.counts)
}

// Path is one way a stranger makes a server log: Run does it n times.
type Path struct {
	Name string
	Run  func(t *testing.T, n int)
}

// Drive runs each path n times, logging the lines each caused and every
// message's count, and requires that no message was written more than
// lograte.Burst times per window of the whole run (the bound every server
// logger is under); it returns the lines per path.
func Drive(t *testing.T, lines *Lines, n int, paths []Path) map[string]int {
	t.Helper()
	start := time.Now()
	per := make(map[string]int, len(paths))
	for _, p := range paths {
		before, began := lines.Total(), time.Now()
		p.Run(t, n)
		per[p.Name] = lines.Total() - before
		t.Logf("path %-42q x%d: %4d log lines (%v)", p.Name, n, per[p.Name], time.Since(began).Round(time.Millisecond))
	}
	elapsed := time.Since(start)
	bound := lograte.Burst * (int(elapsed/lograte.Every) + 1)
	counts := lines.Counts()
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		t.Logf("%5d  %s", counts[k], k)
	}
	t.Logf("%d paths x%d in %v: %d log lines in all, %d messages, at most %d lines each allowed",
		len(paths), n, elapsed, lines.Total(), len(counts), bound)
	for k, c := range counts {
		require.LessOrEqual(t, c, bound, "message %s: %s", k, lines.example(k))
	}
	return per
}

func (l *Lines) example(key string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprintf("first line %s", l.first[key])
}
