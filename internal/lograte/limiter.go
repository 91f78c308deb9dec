package lograte

import (
	"sync"
	"time"
)

// Limiter lets Burst events through per window of Every (a window starts
// with the first event after the previous one ended); its zero value lets
// every event through. It is safe for concurrent use. Pass it times from
// time.Now: their monotonic reading makes a wall-clock step change nothing.
type Limiter struct {
	// Every is the length of a window.
	Every time.Duration
	// Burst is how many events a window lets through; 0 means 1.
	Burst int

	mu         sync.Mutex
	end        time.Time // of the current window
	used       int       // events let through in it
	suppressed int
}

// Allow reports whether the event at now may be logged, and how many were
// refused since the last one allowed (to log with it).
func (l *Limiter) Allow(now time.Time) (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !now.Before(l.end) {
		l.end, l.used = now.Add(l.Every), 0
	}
	if l.used >= max(l.Burst, 1) {
		l.suppressed++
		return false, 0
	}
	l.used++
	suppressed, l.suppressed = l.suppressed, 0
	return true, suppressed
}
