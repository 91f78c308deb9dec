package acl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/remoting"
)

// TestRefusedAccountsFileNotReread: a version of the accounts file that was
// refused (here larger than maxFileSize, a sparse file) was read again at
// every poll, because a refusal forgot the file's stamp: 16 MiB read and
// allocated four times a second for as long as the file stayed. A refused
// version must be read once, and the previous accounts kept.
func TestRefusedAccountsFileNotReread(t *testing.T) {
	a, path := newTestAuthorizer(t, testAccounts, true)
	req := signed(remoting.PutKVConfig, "adminKey1", "adminSecret1")
	big := path + ".big"
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxFileSize+1))
	require.NoError(t, f.Close())
	reads := a.reloader.reads.Load()
	require.NoError(t, os.Rename(big, path))
	poll.Until(t, "a.reloader.reads.Load() > reads", 5*time.Second, 5*time.Millisecond, poll.True(func() bool { return a.reloader.reads.Load() > reads }))
	reads, polls := a.reloader.reads.Load(), a.reloader.polls.Load()
	poll.Until(t, "a.reloader.polls.Load() >= polls+10", 5*time.Second, 5*time.Millisecond, poll.True(func() bool { return a.reloader.polls.Load() >= polls+10 }))
	require.Equal(t, reads, a.reloader.reads.Load(), "the refused version is not read again")
	require.NoError(t, a.Check("", req), "the previous accounts stand")
}

// writeInPlace rewrites path in place with a new modification time, as
// `cat > file` or an editor saving in place does (one version per call).
func writeInPlace(t *testing.T, path, text string, version int) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	mt := time.Now().Add(time.Duration(version) * time.Second)
	require.NoError(t, os.Chtimes(path, mt, mt))
}

// TestHalfWrittenAccountsFileKeepsLastAccounts: a file rewritten in place goes
// through an empty and a half-written state. The reloader took whatever it
// read: an empty file parsed as no accounts and no globalWhiteRemoteAddresses,
// which locked out every broker and opened anonymous reads to every
// address; a prefix of the file (here without its last account and before
// the allow-list written after it) was served likewise. A file without a
// YAML document is refused, and a changed file is read only once its
// stamp (watchedfile.Stamp) held still for one poll.
func TestHalfWrittenAccountsFileKeepsLastAccounts(t *testing.T) {
	const full = testAccounts + "globalWhiteRemoteAddresses: [10.0.0.*]\n"
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	writeFile(t, path, full)
	r, accs, err := newReloader(path, testlog.New(t, "acl"))
	require.NoError(t, err)
	require.Len(t, accs.byKey, 4)

	writeInPlace(t, path, "", 1) // truncated, not yet written
	require.Nil(t, r.poll())
	require.Nil(t, r.poll(), "an empty file is refused even when it holds still")

	half := testAccounts[:strings.Index(testAccounts, "  - accessKey: localKey1")]
	writeInPlace(t, path, half, 2)
	require.Nil(t, r.poll(), "a file that just changed is not read yet")
	writeInPlace(t, path, full+"# v3\n", 3)
	require.Nil(t, r.poll(), "it changed again: still not read")
	accs = r.poll()
	require.NotNil(t, accs, "read once it held still")
	require.Len(t, accs.byKey, 4)
	require.Len(t, accs.global, 1)
}
