package lograte

import (
	"fmt"
	"io"
	"log"
	"maps"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

const (
	// Every is the window of Wrap's limiters.
	Every = time.Second
	// Burst is how many lines of one message Wrap lets through per window.
	Burst = 10
	// maxMessages bounds the limiters Wrap keeps; messages past it share
	// one (every message it sees is a constant of the code, so it is not
	// reached in practice).
	maxMessages = 1024
	// MaxValue bounds a string, []byte or error value of a line Wrap
	// writes (a name or a body a stranger chose); past it the value is cut
	// and ends with the size it had.
	MaxValue = 512
	// MaxStack bounds a stack (a value of type hclog.CapturedStacktrace):
	// a panic's stack is the code's, not a stranger's, and an operator
	// needs its frames past the first few.
	MaxStack = 64 << 10
)

// StdMessage is the message of a line written through StandardLogger or
// StandardWriter; the line itself is its "line" value.
const StdMessage = "stdlib log"

// Wrap returns a logger that writes what base writes, except that lines at
// Info and above are let through at most Burst times per Every for each
// message (keyed by the logger's name and the message, not the values),
// the next line let through carrying "suppressed" with the count of those
// left out. Debug and Trace lines pass unlimited. Every line's long
// values, With's included, are cut to MaxValue bytes (stacks to
// MaxStack). Sub-loggers (Named, With, ResetNamed) share the limiters, so
// per-connection loggers count together. Wrapping a wrapped logger returns it; nil gives a null logger.
func Wrap(base hclog.Logger) hclog.Logger {
	if base == nil {
		base = hclog.NewNullLogger()
	}
	if l, ok := base.(*logger); ok {
		return l
	}
	return &logger{Logger: base, s: &state{limits: make(map[string]*Limiter)}}
}

type logger struct {
	hclog.Logger
	s *state
	// over holds the messages given their own limiter by WithLimit
	// (shared by this logger's sub-loggers); nil for most loggers.
	over map[string]*Limiter
}

// WithLimit returns a logger that writes as l wrapped does (sharing its
// limiters), except that each of msgs passes at most once per every
// instead of Burst times per Every, whatever the logger's name: the lines
// a stranger causes once per connection, stricter than the rest. An every
// of 0 lets each of msgs through unlimited, for a writer that bounds its
// own lines. Its sub-loggers keep the override; values are cut as
// everywhere.
func WithLimit(l hclog.Logger, every time.Duration, msgs ...string) hclog.Logger {
	w := Wrap(l).(*logger)
	over := maps.Clone(w.over)
	if over == nil {
		over = make(map[string]*Limiter, len(msgs))
	}
	for _, m := range msgs {
		over[m] = &Limiter{Every: every}
	}
	return &logger{Logger: w.Logger, s: w.s, over: over}
}

type state struct {
	mu     sync.Mutex
	limits map[string]*Limiter
	other  Limiter
}

func (s *state) limiter(key string) *Limiter {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.limits[key]; ok {
		return l
	}
	if len(s.limits) >= maxMessages {
		s.other.Every, s.other.Burst = Every, Burst
		return &s.other
	}
	l := &Limiter{Every: Every, Burst: Burst}
	s.limits[key] = l
	return l
}

// Log writes msg at level unless its limiter refuses it.
func (l *logger) Log(level hclog.Level, msg string, args ...any) {
	if l.GetLevel() > level && l.GetLevel() != hclog.NoLevel {
		return // would not be written: spend nothing
	}
	if level < hclog.Info {
		l.Logger.Log(level, msg, capValues(args)...)
		return
	}
	lim := l.over[msg]
	if lim == nil {
		lim = l.s.limiter(l.Name() + "\x00" + msg)
	}
	ok, n := lim.Allow(time.Now())
	if !ok {
		return // refused: its values are not even formatted
	}
	args = capValues(args)
	if n > 0 {
		args = append(args[:len(args):len(args)], "suppressed", n)
	}
	l.Logger.Log(level, msg, args...)
}

// capValues returns args with every long value cut to MaxValue bytes (a
// copy: the caller's slice is not written). Any type is cut: strings and
// byte slices, named string types (raft's ServerAddress), errors,
// fmt.Stringers, hclog.Fmt, slices and maps; a value that is not long
// keeps its type (an error becomes its text). A stack (hclog.CapturedStacktrace) is cut at MaxStack.
func capValues(args []any) []any {
	out := args
	for i := 1; i < len(args); i += 2 {
		v, limit, ok := text(args[i])
		_, isErr := args[i].(error)
		if !ok || (len(v) <= limit && !isErr) {
			continue
		}
		if &out[0] == &args[0] {
			out = append([]any(nil), args...)
		}
		if len(v) > limit {
			v = fmt.Sprintf("%s... (%d bytes)", strings.ToValidUTF8(v[:limit], ""), len(v))
		}
		out[i] = v // an error as its text: hclog's JSON calls Error, which panics on a typed nil
		if _, stack := args[i].(hclog.CapturedStacktrace); stack {
			out[i] = hclog.CapturedStacktrace(v)
		}
	}
	return out
}

// text returns how v is written and the bound it is cut to; ok is false
// for the values that cannot be long (nil, numbers, booleans).
func text(v any) (s string, limit int, ok bool) {
	switch x := v.(type) {
	case nil:
		return "", 0, false
	case string:
		return x, MaxValue, true
	case []byte:
		return string(x), MaxValue, true
	case hclog.CapturedStacktrace:
		return string(x), MaxStack, true
	case hclog.Format:
		if len(x) == 0 {
			return "", 0, false
		}
		if f, isString := x[0].(string); isString {
			return fmt.Sprintf(f, x[1:]...), MaxValue, true
		}
		return fmt.Sprint(x...), MaxValue, true
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		if _, custom := v.(fmt.Stringer); !custom {
			return "", 0, false
		}
	}
	// fmt calls Error and String as hclog does, and writes a panic in
	// them (a typed nil) instead of panicking.
	return fmt.Sprintf("%v", v), MaxValue, true
}

// Trace writes a trace line.
func (l *logger) Trace(msg string, args ...any) { l.Log(hclog.Trace, msg, args...) }

// Debug writes a debug line.
func (l *logger) Debug(msg string, args ...any) { l.Log(hclog.Debug, msg, args...) }

// Info writes an info line, limited.
func (l *logger) Info(msg string, args ...any) { l.Log(hclog.Info, msg, args...) }

// Warn writes a warning, limited.
func (l *logger) Warn(msg string, args ...any) { l.Log(hclog.Warn, msg, args...) }

// Error writes an error line, limited.
func (l *logger) Error(msg string, args ...any) { l.Log(hclog.Error, msg, args...) }

// With returns a sub-logger sharing the limiters; its values are cut
// like a line's.
func (l *logger) With(args ...any) hclog.Logger {
	return &logger{Logger: l.Logger.With(capValues(args)...), s: l.s, over: l.over}
}

// Named returns a sub-logger sharing the limiters.
func (l *logger) Named(name string) hclog.Logger {
	return &logger{Logger: l.Logger.Named(name), s: l.s, over: l.over}
}

// ResetNamed returns a sub-logger sharing the limiters.
func (l *logger) ResetNamed(name string) hclog.Logger {
	return &logger{Logger: l.Logger.ResetNamed(name), s: l.s, over: l.over}
}

// StandardLogger returns a *log.Logger writing through l (see
// StandardWriter).
func (l *logger) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(l.StandardWriter(opts), "", 0)
}

// StandardWriter returns a writer that logs each write as one line of
// message StdMessage at opts.ForceLevel (Info when unset), so that lines
// carrying addresses (net/http's) share one limiter.
func (l *logger) StandardWriter(opts *hclog.StandardLoggerOptions) io.Writer {
	level := hclog.Info
	if opts != nil && opts.ForceLevel != hclog.NoLevel {
		level = opts.ForceLevel
	}
	return &stdWriter{l: l, level: level}
}

type stdWriter struct {
	l     *logger
	level hclog.Level
}

func (w *stdWriter) Write(p []byte) (int, error) {
	w.l.Log(w.level, StdMessage, "line", strings.TrimSpace(string(p)))
	return len(p), nil
}
