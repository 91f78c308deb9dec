//go:build unix

package certreload

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testcerts"
)

// TestLoadRefusesSpecialFilesAtOnce: a FIFO named by the certificate, key
// or trust path made Load's open wait for a writer (config validation and
// a handshake's reload hung for ever), and a huge sparse file was read
// whole. Each is refused at once, naming the file.
func TestLoadRefusesSpecialFilesAtOnce(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	f := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "n0", ca)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.pem")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	t.Cleanup(func() { // releases an open that still waits
		if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = syscall.Close(fd)
		}
	})
	huge := filepath.Join(dir, "huge.pem")
	require.NoError(t, os.WriteFile(huge, nil, 0o600))
	require.NoError(t, os.Truncate(huge, 64<<20))
	for _, tc := range []struct {
		cert, key, ca string
		want          map[Role]string
	}{
		{fifo, f.Key, f.CA, map[Role]string{RoleCert: fifo}},
		{f.Cert, fifo, f.CA, map[Role]string{RoleKey: fifo}},
		{f.Cert, f.Key, fifo, map[Role]string{RoleTrust: fifo}},
		{f.Cert, f.Key, "/dev/zero", map[Role]string{RoleTrust: "/dev/zero"}},
		{huge, f.Key, f.CA, map[Role]string{RoleCert: huge}},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Load(tc.cert, tc.key, tc.ca)
			done <- err
		}()
		select {
		case err := <-done:
			requireFileErrors(t, err, tc.want)
		case <-time.After(5 * time.Second):
			t.Fatalf("Load still reading %v after 5s", tc.want)
		}
	}
}
