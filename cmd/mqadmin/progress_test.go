package main

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/admin"
)

// Progress goes to terminals only: not to a buffer, a pipe, a file or
// /dev/null.
func TestWaitProgressOnlyOnTerminal(t *testing.T) {
	t.Parallel()
	require.False(t, isTerminal(&bytes.Buffer{}))
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	require.False(t, isTerminal(w))
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer f.Close()
	require.False(t, isTerminal(f))
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer null.Close()
	require.False(t, isTerminal(null))
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		require.True(t, isTerminal(tty))
	}
}

// Each round rewrites one line (ready count, round, time left); done
// clears it, and prints nothing when no round was shown.
func TestWaitProgressLine(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := &waitProgress{w: &out, topic: "TopicTest", limit: 60 * time.Second}
	p.done()
	require.Empty(t, out.String())
	p.round(&admin.WaitResult{Rounds: 3, Elapsed: 1500 * time.Millisecond,
		Statuses: []admin.WaitStatus{{Ready: true}, {Ready: false}, {Ready: true}}})
	require.Equal(t, "\r\033[Kwaiting for TopicTest: 2/3 NameServers ready, round 3, 59s left", out.String())
	out.Reset()
	p.done()
	require.Equal(t, "\r\033[K", out.String())
}
