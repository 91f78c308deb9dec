// Package monotime is the clock of every liveness, idle, expiry and
// reload decision: a reading of the process's monotonic clock (Mono) that
// a wall-clock step (NTP, a VM resume, an operator's date -s) does not
// move. Wall time (time.Now's wall reading, UnixMilli) is for display and
// the wire only.
//
// Clock pairs the two readings so injectable clocks can model a wall step
// apart from the passing of time: Fake is a manual clock for unit tests,
// Shifted runs on real time with a wall offset for tests of code that also
// waits on the runtime's timers or socket deadlines.
package monotime
