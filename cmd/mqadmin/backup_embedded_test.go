//go:build embedded_controller

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/internal/backupfile"
)

// TestBackupControllerWritesAVerifiedFileOnce: backupController asks the
// leader, writes the backup file with its checksum, prints where, and
// never overwrites a file.
func TestBackupControllerWritesAVerifiedFileOnce(t *testing.T) {
	ctl := startController(t)
	newCtlBroker(t, ctl, 1).join()
	file := filepath.Join(t.TempDir(), "ctl.backup")
	out := requireOK(t, mqadmin(t, "backupController", "-a", "127.0.0.1:1;"+ctl, "-f", file))
	b, err := backupfile.ReadFile(file, admin.MaxBackupBytes)
	require.NoError(t, err)
	require.Contains(t, out, "sha256 "+b.Sum()+", written to "+file)
	require.Contains(t, out, "from leader "+ctl)

	r := mqadmin(t, "backupController", "-a", ctl, "-f", file)
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.errOut, "exists: choose another name")
	again, err := backupfile.ReadFile(file, admin.MaxBackupBytes)
	require.NoError(t, err)
	require.Equal(t, b.Data, again.Data, "the first backup is untouched")
	entries, err := os.ReadDir(filepath.Dir(file))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left")

	r = mqadmin(t, "backupController", "-a", ctl)
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.errOut, "-f")
}
