package tlsconf

import (
	"math/big"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testcerts"
)

// TestReloadSeesPermissionFixes: a reload that failed because the
// new key was unreadable by the server's user is tried again when the
// operator fixes the permissions (chmod, chown): those change neither
// the inode, the size nor the modification time, only the mode and the
// change time, so a stamp without them never retried and the new
// certificate was not served until some later edit.
func TestReloadSeesPermissionFixes(t *testing.T) {
	p := newPKI(t)
	c := p.serverTLS(config.TLSModeEnforcing)
	w := newWatcher(c)
	require.False(t, w.changed())
	require.NoError(t, os.Chmod(p.files.Key, 0o000))
	require.True(t, w.changed(), "chmod 000")
	require.NoError(t, os.Chmod(p.files.Key, 0o600))
	require.True(t, w.changed(), "chmod back to 600")
	require.False(t, w.changed())
	if os.Geteuid() == 0 {
		require.NoError(t, os.Chown(p.files.Key, 1, 1))
		require.True(t, w.changed(), "chown (mode unchanged)")
	}
}

// TestReloadSurvivesBadReplacements: the certificate file replaced
// by a directory, deleted, replaced by a FIFO or by a huge file: each
// reload fails (counted), the old certificate keeps being served, the
// watcher is not stuck (a FIFO's open would wait for a writer) and picks
// up the good pair written last.
func TestReloadSurvivesBadReplacements(t *testing.T) {
	p := newPKI(t)
	m := newManager(t, p.serverTLS(config.TLSModeEnforcing), WithReloadInterval(20*time.Millisecond))
	addr := startEcho(t, m)
	bad := []func(path string) error{
		func(path string) error { return os.Mkdir(path, 0o700) },
		func(string) error { return nil }, // deleted
		func(path string) error { return syscall.Mkfifo(path, 0o600) },
		func(path string) error {
			f, err := os.Create(path)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(64 << 20)
		},
	}
	for i, replace := range bad {
		require.NoError(t, os.RemoveAll(p.files.Cert))
		require.NoError(t, replace(p.files.Cert))
		require.Eventually(t, func() bool { return m.ReloadFailures() == uint64(i+1) }, 10*time.Second, 5*time.Millisecond, "replacement %d", i)
		var last atomic.Pointer[big.Int]
		require.NoError(t, echo(t, addr, seenSerial(p.ca, &last)))
		require.Zero(t, last.Load().Cmp(p.leaf.Cert.SerialNumber), "the old certificate is served")
	}
	require.NoError(t, os.RemoveAll(p.files.Cert))
	next := p.ca.Issue(t, testcerts.LeafOptions{})
	next.WriteFiles(t, p.dir, "server", p.ca)
	require.Eventually(t, func() bool {
		var last atomic.Pointer[big.Int]
		return echo(t, addr, seenSerial(p.ca, &last)) == nil && last.Load().Cmp(next.Cert.SerialNumber) == 0
	}, 10*time.Second, 10*time.Millisecond)
}
