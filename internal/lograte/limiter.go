package lograte

import (
	"sync"
	"time"
)

// Limiter lets one event per Every through; its zero value lets every
// event through. It is safe for concurrent use.
type Limiter struct {
	// Every is the shortest time between two events let through.
	Every time.Duration

	mu         sync.Mutex
	next       time.Time
	suppressed int
}

// Allow reports whether the event at now may be logged, and how many were
// refused since the last one allowed (to log with it).
func (l *Limiter) Allow(now time.Time) (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Before(l.next) {
		l.suppressed++
		return false, 0
	}
	l.next = now.Add(l.Every)
	suppressed, l.suppressed = l.suppressed, 0
	return true, suppressed
}
