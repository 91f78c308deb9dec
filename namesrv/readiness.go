package namesrv

import (
	"sync/atomic"
	"time"
)

// startupWait is a wait after start whose length is fixed by the startup
// config: needWaitForService/waitSecondsForService for route lookups,
// readyAfterBrokerRegistrationSeconds for /readyz. Once passed it stays
// passed, so an update of those keys (persisted, effective at the next
// start) cannot make a running node unready again. Java's
// ClientRequestProcessor re-reads the keys on every request but stops
// checking (needCheckNamesrvReady) once it has served a route; we latch
// when the wait has passed.
type startupWait struct {
	wait   time.Duration
	passed atomic.Bool
}

func newStartupWait(seconds int) *startupWait {
	return &startupWait{wait: time.Duration(seconds) * time.Second}
}

// left returns how much of the wait remains after from; 0 once it has
// passed, and from then on. A nil wait has always passed.
func (w *startupWait) left(from time.Time) time.Duration {
	if w == nil || w.passed.Load() {
		return 0
	}
	if rest := w.wait - time.Since(from); rest > 0 {
		return rest
	}
	w.passed.Store(true)
	return 0
}

// seconds is the configured wait, for messages.
func (w *startupWait) seconds() int {
	if w == nil {
		return 0
	}
	return int(w.wait / time.Second)
}
