package acl

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// TestAttackRefusedFileNotReread: a version of the accounts file that was
// refused (here larger than maxFileSize, a sparse file) was read again at
// every poll, because a refusal forgot the file's stamp: 16 MiB read and
// allocated four times a second for as long as the file stayed. A refused
// version must be read once, and the previous accounts kept.
func TestAttackRefusedFileNotReread(t *testing.T) {
	a, path := newTestAuthorizer(t, testAccounts, true)
	req := signed(remoting.PutKVConfig, "adminKey1", "adminSecret1")
	big := path + ".big"
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxFileSize+1))
	require.NoError(t, f.Close())
	reads := a.reloader.reads.Load()
	require.NoError(t, os.Rename(big, path))
	require.Eventually(t, func() bool { return a.reloader.reads.Load() > reads }, 5*time.Second, 5*time.Millisecond)
	reads, polls := a.reloader.reads.Load(), a.reloader.polls.Load()
	require.Eventually(t, func() bool { return a.reloader.polls.Load() >= polls+10 }, 5*time.Second, 5*time.Millisecond)
	require.Equal(t, reads, a.reloader.reads.Load(), "the refused version is not read again")
	require.NoError(t, a.Check("", req), "the previous accounts stand")
}
