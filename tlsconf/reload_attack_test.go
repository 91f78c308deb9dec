package tlsconf

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
)

// TestAttackReloadSeesPermissionFixes: a reload that failed because the
// new key was unreadable by the server's user is tried again when the
// operator fixes the permissions (chmod, chown): those change neither
// the inode, the size nor the modification time, only the mode and the
// change time, so a stamp without them never retried and the new
// certificate was not served until some later edit.
func TestAttackReloadSeesPermissionFixes(t *testing.T) {
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
