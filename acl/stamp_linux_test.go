//go:build linux

package acl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestInPlaceEditKeepingMtimeAndSizeIsSeen: the accounts file rewritten
// in place at the same size with its modification time put back (cp -p,
// rsync -t, tar x) was never read again, so a revoked key kept working:
// the poll compared modification time and size only. The change time
// moves with every write, so the new accounts are read once they hold
// still.
func TestInPlaceEditKeepingMtimeAndSizeIsSeen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	writeFile(t, path, testAccounts)
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(path, old, old))
	r, accs, err := newReloader(path, testlog.New(t, "acl"))
	require.NoError(t, err)
	require.Contains(t, accs.byKey, "adminKey1")

	revoked := strings.Replace(testAccounts, "adminKey1", "adminKeyX", 1)
	require.NoError(t, os.WriteFile(path, []byte(revoked), 0o600)) // in place: same inode
	require.NoError(t, os.Chtimes(path, old, old))
	require.Nil(t, r.poll(), "a file that just changed is not read yet")
	accs = r.poll()
	require.NotNil(t, accs, "read once it held still")
	require.NotContains(t, accs.byKey, "adminKey1")
}
