package config

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTLSConfigFileBounded: a tls.config.file that is huge, a FIFO
// or a device is refused promptly, naming the key and file, without being
// read into memory (nor an open that waits for a writer).
func TestTLSConfigFileBounded(t *testing.T) {
	huge := filepath.Join(t.TempDir(), "tls.properties")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(64<<20)) // sparse
	require.NoError(t, f.Close())
	fifo := filepath.Join(t.TempDir(), "fifo.properties")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	t.Cleanup(func() {
		if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = syscall.Close(fd)
		}
	})
	for path, want := range map[string]string{huge: "larger than", fifo: "not a regular file", "/dev/zero": "not a regular file"} {
		done := make(chan error, 1)
		go func() {
			_, err := LoadTLS(map[string]string{TLSConfigFileKey: path}, nil)
			done <- err
		}()
		select {
		case err := <-done:
			require.ErrorIs(t, err, ErrLoad, path)
			require.ErrorContains(t, err, TLSConfigFileKey)
			require.ErrorContains(t, err, path)
			require.ErrorContains(t, err, want)
		case <-time.After(5 * time.Second):
			t.Fatalf("LoadTLS(%s) still reading after 5s", path)
		}
	}
}

// TestTLSValidateRefusesSpecialFiles: Validate names a key whose
// path is a FIFO, device or directory instead of opening it (an open of
// a FIFO waits for a writer: startup would hang).
func TestTLSValidateRefusesSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.pem")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, path := range []string{fifo, "/dev/zero", t.TempDir()} {
		c := DefaultTLS()
		c.ServerCertPath, c.ServerKeyPath = path, path
		done := make(chan error, 1)
		go func() { done <- c.Validate() }()
		select {
		case err := <-done:
			require.ErrorContains(t, err, "tls.server.certPath ("+path+") cannot be read")
			require.ErrorContains(t, err, "not a regular file")
		case <-time.After(5 * time.Second):
			t.Fatalf("Validate(%s) still opening after 5s", path)
		}
	}
}

// TestAttackRemoteTLSUpdateVariants: no spelling of a tls.* key gets
// through UPDATE_NAMESRV_CONFIG or UPDATE_CONTROLLER_CONFIG (case, white
// space around key and separator, escapes that Java's Properties.load
// decodes), and a refused update leaves the -c file's password intact.
func TestAttackRemoteTLSUpdateVariants(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", "tls.server.keyPassword=secret\ntls.server.mode=enforcing\n"))
	require.NoError(t, err)
	for _, body := range []string{
		"TLS.SERVER.MODE=disabled\n", "  tls.server.mode = disabled\n", "\ttls.server.mode:disabled\n",
		"tls.server.mode disabled\n", `\u0074ls.server.mode=disabled` + "\n", `tls\.server\.mode=disabled` + "\n",
		"tls.server.keyPassword=******\n", "Tls.Enable=false\n", "tls.config.file=/tmp/x\n",
		"listenPort2=1\ntls.server.mode=disabled\n",
	} {
		_, err := c.ApplyUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, "%q", body)
		_, err = c.ApplyControllerUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, "controller: %q", body)
	}
	require.Equal(t, "secret", c.RawProperties()["tls.server.keyPassword"])
	require.Equal(t, "enforcing", c.RawProperties()["tls.server.mode"])
}
