package monotime

import (
	"math"
	"sync"
	"time"
)

// base is the process's origin of Mono readings. It carries Go's
// monotonic reading, so time.Since(base) ignores wall-clock steps.
var base = time.Now()

// Mono is a reading of the monotonic clock: nanoseconds since the
// process's base, plus one, so a reading is never 0 (callers may use 0 as
// "unset"). Readings of different processes are not comparable.
type Mono int64

// Now returns the current monotonic reading.
func Now() Mono { return Mono(time.Since(base)) + 1 }

// Add returns m moved by d, saturating: a deadline past the end of the
// clock stays after every reading (a huge timeout never wraps into one
// already over).
func (m Mono) Add(d time.Duration) Mono {
	s := m + Mono(d)
	switch {
	case d > 0 && s < m:
		return math.MaxInt64
	case d < 0 && s > m:
		return math.MinInt64
	}
	return s
}

// Sub returns the duration m-o, saturating at the extremes of
// time.Duration (so it keeps its sign).
func (m Mono) Sub(o Mono) time.Duration {
	d := m - o
	switch {
	case o < 0 && d < m:
		return math.MaxInt64
	case o > 0 && d > m:
		return math.MinInt64
	}
	return time.Duration(d)
}

// Before reports whether m is before o.
func (m Mono) Before(o Mono) bool { return m < o }

// Deadline returns the time.Time, carrying a monotonic reading, at which
// the process's monotonic clock reads m: for net.Conn deadlines and
// timers, which then ignore wall steps too.
func (m Mono) Deadline() time.Time { return time.Now().Add(m.Sub(Now())) }

// Clock gives both readings. Mono decides; Now (wall) is for display and
// the wire only.
type Clock interface {
	Now() time.Time // wall clock: display and wire only
	Mono() Mono     // monotonic clock: every decision
}

// System is the process's clock.
var System Clock = system{}

type system struct{}

func (system) Now() time.Time { return time.Now() }
func (system) Mono() Mono     { return Now() }

// Fake is a manual Clock: Advance moves both readings, StepWall moves the
// wall reading only (a wall-clock step). Safe for concurrent use.
type Fake struct {
	mu   sync.Mutex
	wall time.Time
	mono Mono
}

// NewFake returns a Fake whose wall reading is wall (its monotonic
// reading starts at one hour).
func NewFake(wall time.Time) *Fake { return &Fake{wall: wall.Round(0), mono: Mono(time.Hour)} }

// Now returns the wall reading (without a monotonic reading).
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.wall
}

// Mono returns the monotonic reading.
func (f *Fake) Mono() Mono {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mono
}

// Advance lets d pass: both readings move by d (d >= 0).
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	f.wall, f.mono = f.wall.Add(d), f.mono.Add(d)
	f.mu.Unlock()
}

// StepWall steps the wall reading by d (either sign); no time passes.
func (f *Fake) StepWall(d time.Duration) {
	f.mu.Lock()
	f.wall = f.wall.Add(d)
	f.mu.Unlock()
}
