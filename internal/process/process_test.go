package process

import (
	"bytes"
	"encoding/json"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// A level or format that is none of its choices is an error naming the
// variable; unset means info and text.
func TestNewLoggerNamesBadVariable(t *testing.T) {
	_, err := NewLogger("namesrv", "NAMESRV_", &bytes.Buffer{}, env(map[string]string{"NAMESRV_LOG_LEVEL": "verbose"}))
	require.ErrorIs(t, err, ErrLogSetting)
	require.EqualError(t, err, "invalid log setting: NAMESRV_LOG_LEVEL (verbose) is not a log level: trace, debug, info, warn, error or off")
	_, err = NewLogger("namesrv", "NAMESRV_", &bytes.Buffer{}, env(map[string]string{"NAMESRV_LOG_FORMAT": "xml"}))
	require.ErrorContains(t, err, "NAMESRV_LOG_FORMAT (xml) is not a log format")

	var out bytes.Buffer
	l, err := NewLogger("namesrv", "NAMESRV_", &out, env(nil))
	require.NoError(t, err)
	l.Debug("hidden")
	l.Info("shown", "k", 1)
	require.NotContains(t, out.String(), "hidden")
	require.Contains(t, out.String(), "[INFO]  namesrv: shown: k=1")
}

// LOG_FORMAT=json writes one JSON object a line.
func TestNewLoggerJSON(t *testing.T) {
	var out bytes.Buffer
	l, err := NewLogger("mqcontroller", "CONTROLLER_", &out, env(map[string]string{"CONTROLLER_LOG_FORMAT": "JSON", "CONTROLLER_LOG_LEVEL": "debug"}))
	require.NoError(t, err)
	l.Debug("started", "port", 9878)
	var line map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &line))
	require.Equal(t, "started", line["@message"])
	require.Equal(t, "mqcontroller", line["@module"])
	require.Equal(t, 9878.0, line["port"])
}

// SIGQUIT logs every goroutine's stack and the process goes on (Go's
// default would exit 2 and end this test binary).
func TestQuitDumpsStacksAndKeepsRunning(t *testing.T) {
	var out testlog.Lines
	l, err := NewLogger("namesrv", "NAMESRV_", &out, env(nil))
	require.NoError(t, err)
	stop := DumpOnQuit(l)
	defer stop()
	for round := 1; round <= 2; round++ {
		require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGQUIT))
		poll.Until(t, `strings.Count(out.String(), "goroutine dump (SIGQUIT), still serving") == round`, 10*time.Second, 10*time.Millisecond, poll.True(func() bool {
			return strings.Count(out.String(), "goroutine dump (SIGQUIT), still serving") == round
		}))
	}
	require.Contains(t, out.String(), "TestQuitDumpsStacksAndKeepsRunning")
	require.Contains(t, out.String(), "goroutine ")
}

// SIGHUP is a stop signal, caught like SIGTERM.
func TestHangupStopsGracefully(t *testing.T) {
	ch := NotifyStop()
	defer signal.Stop(ch)
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGHUP))
	select {
	case s := <-ch:
		require.Equal(t, syscall.SIGHUP, s)
	case <-time.After(30 * time.Second):
		t.Fatal("SIGHUP not delivered")
	}
}

// A SIGHUP ignored from the start (nohup) stays ignored: NotifyStop does
// not catch it, so the hang-up of the terminal does not stop the server.
func TestHangupIgnoredUnderNohupStaysIgnored(t *testing.T) {
	signal.Ignore(syscall.SIGHUP)
	t.Cleanup(func() { signal.Reset(syscall.SIGHUP) })
	ch := NotifyStop()
	defer signal.Stop(ch)
	require.True(t, signal.Ignored(syscall.SIGHUP))
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGHUP))
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	select {
	case s := <-ch:
		require.Equal(t, syscall.SIGTERM, s, "SIGHUP was caught")
	case <-time.After(30 * time.Second):
		t.Fatal("SIGTERM not delivered")
	}
}
