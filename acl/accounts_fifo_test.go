//go:build unix

package acl

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
)

// TestFIFOAccountsFileNeverBlocks: aclConfigPath replaced by a named pipe made
// the watcher's open block until a writer came, for ever: no reload (a
// revoked key stayed valid) and Close, hence the NameServer's shutdown,
// hung. A file that is not a regular file is refused at once.
func TestFIFOAccountsFileNeverBlocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	writeFile(t, path, testAccounts)
	a, err := New(Options{Path: path, PollInterval: 10 * time.Millisecond})
	require.NoError(t, err)
	fifo := path + ".fifo"
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	polls := a.reloader.polls.Load()
	require.NoError(t, os.Rename(fifo, path))
	poll.Until(t, "the watcher keeps polling", 5*time.Second, 5*time.Millisecond, poll.True(func() bool { return a.reloader.polls.Load() >= polls+3 }))
	closed := make(chan struct{})
	go func() { a.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs on a named pipe")
	}
	_, err = New(Options{Path: path})
	require.ErrorIs(t, err, ErrBadFile, "a pipe is refused at start too")
	require.Contains(t, err.Error(), "not a regular file")
}
