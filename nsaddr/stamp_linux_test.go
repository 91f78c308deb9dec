//go:build linux

package nsaddr

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestInPlaceEditKeepingMtimeAndSizeIsSeen: nsAddrFile rewritten in place
// with a list of the same length and its modification time put back (cp
// -p, rsync -t, tar x do that) was never read again: the stamp compared
// inode, size and modification time only. The change time moves with
// every write, so the new list is served.
func TestInPlaceEditKeepingMtimeAndSizeIsSeen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nsaddr")
	require.NoError(t, os.WriteFile(path, []byte("10.0.0.1:9876"), 0o600))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(path, old, old))
	s, err := New("", path, testlog.New(t, "nsaddr"))
	require.NoError(t, err)
	require.Equal(t, "10.0.0.1:9876", s.List())

	require.NoError(t, os.WriteFile(path, []byte("10.0.0.2:9876"), 0o600)) // in place: same inode
	require.NoError(t, os.Chtimes(path, old, old))
	require.Equal(t, "10.0.0.2:9876", s.List())
}
