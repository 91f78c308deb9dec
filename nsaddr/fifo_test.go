//go:build unix

package nsaddr

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestFIFONsAddrFileNeverBlocks: nsAddrFile replaced by a named pipe made the
// re-read's open block until a writer came, holding the Source's lock: the
// request that saw the change and every later one (each an HTTP goroutine)
// hung for ever. A path that is not a regular file is refused at once and
// the last good list served.
func TestFIFONsAddrFileNeverBlocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nsaddr")
	writeList(t, path, "10.0.0.1:9876")
	s, err := New("", path, testlog.New(t, "nsaddr"))
	require.NoError(t, err)
	fifo := path + ".fifo"
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	require.NoError(t, os.Rename(fifo, path))
	got := make(chan string, 1)
	go func() { got <- s.List() }()
	select {
	case list := <-got:
		require.Equal(t, "10.0.0.1:9876", list)
	case <-time.After(5 * time.Second):
		t.Fatal("List hangs on a named pipe")
	}
}
