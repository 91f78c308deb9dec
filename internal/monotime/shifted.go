package monotime

import (
	"sync/atomic"
	"time"
)

// Shifted is a Clock on real time whose wall reading is offset by the
// steps applied so far: a wall-clock step as NTP makes it, while timers,
// socket deadlines and the monotonic reading go on unaffected. It counts
// its reads, so a test can tell a loop spinning on the clock from one
// that sleeps. Safe for concurrent use.
type Shifted struct {
	offset atomic.Int64 // nanoseconds added to the wall reading
	reads  atomic.Int64
}

// Now returns the shifted wall reading (without a monotonic reading, as
// a stepped system clock's time.Unix values have none).
func (s *Shifted) Now() time.Time {
	s.reads.Add(1)
	return time.Now().Add(time.Duration(s.offset.Load())).Round(0)
}

// Mono returns the real monotonic reading.
func (s *Shifted) Mono() Mono {
	s.reads.Add(1)
	return Now()
}

// StepWall steps the wall reading by d (either sign).
func (s *Shifted) StepWall(d time.Duration) { s.offset.Add(int64(d)) }

// Reads returns how many times the clock was read.
func (s *Shifted) Reads() int64 { return s.reads.Load() }

// WallDeadline returns the real deadline a socket gets for the wall time
// t read on this clock: the kernel-side wait of SetDeadline(t) on a host
// whose wall clock reads s.Now().
func (s *Shifted) WallDeadline(t time.Time) time.Time { return time.Now().Add(t.Sub(s.Now())) }
