//go:build unix

package config

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// withUmask runs fn under umask mask and restores the previous one. The
// umask is process-wide: tests using it do not run in parallel.
func withUmask(mask int, fn func()) {
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	fn()
}

func fileMode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	return st.Mode().Perm()
}

// A config file written by an update gets the mode Java's
// MixAll.string2File gives it: a new file 0666 less the umask (0644 under
// the usual 022), an existing file (and its .bak) keeps its mode; a .bak
// is never wider than the file it copies.
func TestPersistFileModeFollowsUmask(t *testing.T) {
	for _, tc := range []struct {
		umask int
		want  fs.FileMode
	}{{0o022, 0o644}, {0o027, 0o640}, {0o077, 0o600}} {
		withUmask(tc.umask, func() {
			c := Default()
			c.ConfigStorePath = filepath.Join(t.TempDir(), "namesrv.properties")
			require.NoError(t, c.Persist())
			require.Equal(t, tc.want, fileMode(t, c.ConfigStorePath), "new file under umask %04o", tc.umask)
			require.NoError(t, c.Persist())
			require.Equal(t, tc.want, fileMode(t, c.ConfigStorePath+".bak"), "new .bak under umask %04o", tc.umask)
		})
	}
}

func TestPersistKeepsExistingMode(t *testing.T) {
	withUmask(0o022, func() {
		path := writeFile(t, "namesrv.properties", "listenPort=9876\n")
		require.NoError(t, os.Chmod(path, 0o640))
		c, err := Load(path)
		require.NoError(t, err)
		require.NoError(t, c.Persist())
		require.Equal(t, fs.FileMode(0o640), fileMode(t, path))
		require.Equal(t, fs.FileMode(0o640), fileMode(t, path+".bak"), "a new .bak is no wider than the file it copies")
		require.NoError(t, os.Chmod(path+".bak", 0o600))
		require.NoError(t, c.Persist())
		require.Equal(t, fs.FileMode(0o600), fileMode(t, path+".bak"))
	})
}

// TestBackupNoWiderThanSource: the .bak written on an update holds
// the previous file, tls.server.keyPassword included, so it is never more
// readable than that file: a 0600 -c file does not leave a 0644 copy (nor
// keeps one left by an older version).
func TestBackupNoWiderThanSource(t *testing.T) {
	withUmask(0o022, func() {
		path := writeFile(t, "namesrv.properties", "listenPort=9876\ntls.server.keyPassword=s3cret\n")
		require.NoError(t, os.Chmod(path, 0o600))
		c, err := Load(path)
		require.NoError(t, err)
		require.NoError(t, c.Persist())
		require.Equal(t, fs.FileMode(0o600), fileMode(t, path))
		require.Equal(t, fs.FileMode(0o600), fileMode(t, path+".bak"), "a new .bak")
		require.NoError(t, os.Chmod(path+".bak", 0o644))
		require.NoError(t, c.Persist())
		require.Equal(t, fs.FileMode(0o600), fileMode(t, path+".bak"), "an old world-readable .bak")
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Contains(t, string(data), "tls.server.keyPassword=s3cret", "the password survives the rewrite")
	})
}
