//go:build embedded_controller

package controller

import (
	"sync"
	"time"
)

// Group commit of controller-triggered elections. A zone failure closes
// the masters' connections over tens of milliseconds, and each close that
// reaches the leader starts its set's election at once: Raft then writes
// the elections in many small fsync'd batches, each waiting for a
// follower's round trip. The window holds the append of every election
// built within w of the first one and releases them together, so their
// entries reach the leader loop at once and share one or two log writes.
// It changes only when an election is appended: each set's election is
// built by its own task (holding its set's keys, so the set's order is
// kept), appended as its own entry and fenced at apply by that entry's
// preconditions, so a stale election is rejected alone. Client requests
// never wait.

const (
	// defaultElectionWindow is the window of New (BENCHMARKS.md,
	// "Controller at fleet scale": 3 ms gave the shortest storm).
	defaultElectionWindow = 3 * time.Millisecond
	// maxElectionWindow bounds WithElectionWindow: an election never waits
	// longer for its neighbours.
	maxElectionWindow = 50 * time.Millisecond
)

// WithElectionWindow sets the group-commit window of controller-triggered
// elections (0 disables it; values above maxElectionWindow are clamped).
func WithElectionWindow(w time.Duration) Option {
	return func(o *options) { o.electionWindow = min(max(w, 0), maxElectionWindow) }
}

// electionWindow gathers the elections that start within w of the first
// one of a burst. The zero value with w 0 lets every election through.
type electionWindow struct {
	w    time.Duration
	mu   sync.Mutex
	open chan struct{} // closed when the current window ends; nil: none open
}

// wait returns when the window that this call opened or joined ends, or
// at once when done is closed or the window is 0.
func (e *electionWindow) wait(done <-chan struct{}) {
	if e.w <= 0 {
		return
	}
	select {
	case <-e.join():
	case <-done:
	}
}

// join returns the channel of the open window, opening one if none is.
func (e *electionWindow) join() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.open == nil {
		ch := make(chan struct{})
		e.open = ch
		time.AfterFunc(e.w, func() { e.release(ch) })
	}
	return e.open
}

// release ends the window of ch if it is the open one.
func (e *electionWindow) release(ch chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.open == ch {
		e.open = nil
		close(ch)
	}
}
