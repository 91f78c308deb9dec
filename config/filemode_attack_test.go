//go:build unix

package config

import (
	"io/fs"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

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
