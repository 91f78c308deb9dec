package lograte

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestWrapBoundsEachMessage: within one window, each message passes Burst
// times however many loggers derived from the wrapped one write it; Debug
// lines pass; the count left out rides on the next line let through.
func TestWrapBoundsEachMessage(t *testing.T) {
	base, lines := testlog.Capture(t, "x", hclog.Debug)
	l := Wrap(base)
	require.Same(t, l, Wrap(l), "wrapping twice is wrapping once")
	start := time.Now()
	for i := range 1000 {
		l.Named("conn").With("remote", i).Warn("refused a connection", "i", i)
		l.Info("another message")
		l.Debug("debug passes")
	}
	std := l.StandardLogger(nil)
	for i := range 100 {
		std.Printf("http: TLS handshake error from 10.0.0.%d:1: EOF", i)
	}
	if time.Since(start) >= Every {
		t.Skip("the loop outlasted one window on this machine; the bound below assumes one")
	}
	require.Equal(t, Burst, lines.Count("refused a connection"))
	require.Equal(t, Burst, lines.Count("another message"))
	require.Equal(t, 1000, lines.Count("debug passes"))
	require.Equal(t, Burst, lines.Count(StdMessage))
	require.Zero(t, lines.Count("suppressed"))
	poll.Until(t, `lines.Has("suppressed=")`, 5*time.Second, 50*time.Millisecond, poll.True(func() bool {
		l.Named("conn").Warn("refused a connection")
		return lines.Has("suppressed=")
	}))
	last := lines.String()[strings.LastIndex(lines.String(), "refused a connection"):]
	require.Contains(t, last, "suppressed=")
}

// TestWrapSpendsNothingBelowTheLevel: lines the base logger drops use no
// part of the burst.
func TestWrapSpendsNothingBelowTheLevel(t *testing.T) {
	base, lines := testlog.Capture(t, "x", hclog.Warn)
	l := Wrap(base)
	for range 100 {
		l.Info("dropped")
	}
	base.SetLevel(hclog.Info)
	l.Info("dropped")
	require.Equal(t, 1, lines.Count("dropped"))
	require.NotContains(t, lines.String(), "suppressed")
}

// TestWrapBoundsItsLimiters: past maxMessages distinct messages, the rest
// share one limiter (memory stays bounded).
func TestWrapBoundsItsLimiters(t *testing.T) {
	l := Wrap(hclog.NewNullLogger()).(*logger) // NoLevel: every line is counted
	for i := range 3 * maxMessages {
		l.Info("message " + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune(i)))
	}
	require.Len(t, l.s.limits, maxMessages)
}

// TestWrapCutsLongValues: a value a stranger chose (a 1 MiB name, body
// or error) is cut to MaxValue bytes and says how long it was.
func TestWrapCutsLongValues(t *testing.T) {
	base, lines := testlog.Capture(t, "x", hclog.Info)
	big := strings.Repeat("n", 1<<20)
	args := []any{"name", big, "body", []byte(big), "error", errors.New(big), "n", 7}
	Wrap(base).Warn("register refused", args...)
	require.Less(t, len(lines.String()), 4*MaxValue)
	require.Equal(t, 3, lines.Count("... (1048576 bytes)"))
	require.Equal(t, big, args[1], "the caller's arguments are not changed")
}

// BenchmarkWrapDisabledDebug: a Debug line below the level costs no
// formatting of its values (a per-connection Debug line on a hot path).
func BenchmarkWrapDisabledDebug(b *testing.B) {
	l := Wrap(hclog.New(&hclog.LoggerOptions{Name: "x", Level: hclog.Info, Output: io.Discard}))
	addr := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 10911}
	b.ReportAllocs()
	for b.Loop() {
		l.Debug("client connection closed", "remote", addr, "after", time.Second)
	}
}

// TestWithLimitOverridesListedMessages: WithLimit gives the listed
// messages one line per its interval, counting those left out, for the
// logger and its sub-loggers together, while the other messages keep
// Burst per Every and the values are cut as everywhere.
func TestWithLimitOverridesListedMessages(t *testing.T) {
	var out buffer
	base := Wrap(hclog.New(&hclog.LoggerOptions{Name: "x", Output: &out, JSONFormat: true}))
	l := WithLimit(base.Named("transport"), time.Hour, "failed to decode incoming command")
	for i := range 50 {
		l.Named("sub").Error("failed to decode incoming command", "remote", strings.Repeat("r", 4*MaxValue))
		l.Error("failed to decode incoming command", "i", i)
		l.Error("other message", "i", i)
	}
	text := out.b.String()
	require.Equal(t, 1, strings.Count(text, "failed to decode incoming command"), text)
	require.Equal(t, Burst, strings.Count(text, "other message"), "the others keep lograte's limit")
	require.Less(t, len(text), 2*MaxValue+Burst*256, "values are cut")
	require.Same(t, base.(*logger).s, l.(*logger).s, "the limiters are shared")
}

// TestWithLimitZeroExempts: an interval of 0 lets the listed messages
// through unlimited (a writer bounding its own lines), still cut.
func TestWithLimitZeroExempts(t *testing.T) {
	var out buffer
	l := WithLimit(hclog.New(&hclog.LoggerOptions{Name: "x", Output: &out}), 0, "summary")
	for range 3 * Burst {
		l.Error("summary", "error", strings.Repeat("e", 4*MaxValue))
	}
	require.Equal(t, 3*Burst, strings.Count(out.b.String(), "summary"))
	require.Less(t, out.Len(), 3*Burst*(MaxValue+128))
}
