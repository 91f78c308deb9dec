package tlsconf

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testcerts"
)

// TestTestModeDoesNotDisableServerVerification: an operator who
// names a trust file and sets tls.client.authServer=true gets the server's
// chain verified even with tls.test.mode.enable=true (Java's default, so
// often left in a copied tls.properties), and the configured client
// certificate is presented. Test mode only supplies a server certificate
// when none is configured; it never silently turns verification off.
func TestTestModeDoesNotDisableServerVerification(t *testing.T) {
	p := newPKI(t)
	srv := p.serverTLS(config.TLSModeEnforcing)
	srv.ServerNeedClientAuth, srv.ServerAuthClient, srv.ServerTrustCertPath = config.TLSClientAuthRequire, true, p.files.CA
	addr := startEcho(t, newManager(t, srv))

	client := p.ca.Issue(t, testcerts.LeafOptions{CommonName: "client"}).WriteFiles(t, t.TempDir(), "client", p.ca)
	cc := config.DefaultTLS()
	cc.Enable, cc.TestModeEnable, cc.ClientAuthServer = true, true, true
	cc.ClientCertPath, cc.ClientKeyPath, cc.ClientTrustCertPath = client.Cert, client.Key, client.CA
	t.Run("client certificate presented", func(t *testing.T) {
		require.NoError(t, echo(t, addr, newManager(t, cc).Client()))
	})
	t.Run("untrusted server refused", func(t *testing.T) {
		otherCA := testcerts.NewCA(t, "other")
		c := cc.Clone()
		c.ClientTrustCertPath = otherCA.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "x", otherCA).CA
		open := startEcho(t, newManager(t, p.serverTLS(config.TLSModeEnforcing))) // asks for no client certificate
		require.Error(t, echo(t, open, newManager(t, c).Client()), "a server outside tls.client.trustCertPath")
	})
}

// TestOversizedAndSpecialFilesRefused: a certificate, key or trust path
// naming a huge file, a FIFO or a device gets a startup error naming the
// key and file, promptly and without reading it all into memory (a
// reload every 5 s would otherwise read it again each time it changes).
func TestOversizedAndSpecialFilesRefused(t *testing.T) {
	p := newPKI(t)
	huge := filepath.Join(t.TempDir(), "huge.pem")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(64<<20)) // sparse: no disk used
	require.NoError(t, f.Close())
	fifo := filepath.Join(t.TempDir(), "fifo.pem")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	t.Cleanup(func() { unblockFIFO(fifo) })
	for _, tc := range []struct{ name, path, want string }{
		{"sparse", huge, "larger than"},
		{"fifo", fifo, "not a regular file"},
		{"devzero", "/dev/zero", "not a regular file"},
	} {
		for _, key := range []string{"tls.server.certPath", "tls.server.keyPath", "tls.server.trustCertPath"} {
			t.Run(tc.name+"/"+key, func(t *testing.T) {
				c := p.serverTLS(config.TLSModeEnforcing)
				c.ServerAuthClient, c.ServerTrustCertPath = true, p.files.CA
				setPath(c, key, tc.path)
				err := newWithin(t, c, 5*time.Second)
				require.Error(t, err)
				require.ErrorContains(t, err, key)
				require.ErrorContains(t, err, tc.path)
				require.ErrorContains(t, err, tc.want)
			})
		}
	}
}

func setPath(c *config.TLS, key, path string) {
	switch key {
	case "tls.server.certPath":
		c.ServerCertPath = path
	case "tls.server.keyPath":
		c.ServerKeyPath = path
	default:
		c.ServerTrustCertPath = path
	}
}

// newWithin runs New and fails the test if it has not returned in d.
func newWithin(t *testing.T, c *config.TLS, d time.Duration) error {
	done := make(chan error, 1)
	go func() {
		m, err := New(c, testLogger(t), WithReloadInterval(0))
		if err == nil {
			m.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("New still loading after %v", d)
		return nil
	}
}

// unblockFIFO opens fifo for writing without blocking, releasing a reader
// stuck in open.
func unblockFIFO(fifo string) {
	if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		_ = syscall.Close(fd)
	}
}

// TestUnusableKeyRefusedAtStartup: a key Go's TLS cannot sign with
// (RSA under 1024 bits, refused by crypto/rsa) would load and then fail
// every handshake, logged at DEBUG only: it is a startup error naming the
// key and file, on the server and the client side.
func TestUnusableKeyRefusedAtStartup(t *testing.T) {
	crt, key := filepath.Join("testdata", "rsa512.crt"), filepath.Join("testdata", "rsa512.key")
	c := config.DefaultTLS()
	c.ServerMode, c.ServerCertPath, c.ServerKeyPath = config.TLSModeEnforcing, crt, key
	_, err := New(c, testLogger(t), WithReloadInterval(0))
	require.ErrorIs(t, err, ErrMaterial)
	require.ErrorContains(t, err, "tls.server.keyPath ("+key+")")

	cc := config.DefaultTLS()
	cc.Enable, cc.ClientCertPath, cc.ClientKeyPath = true, crt, key
	_, err = New(cc, testLogger(t), WithReloadInterval(0))
	require.ErrorIs(t, err, ErrMaterial)
	require.ErrorContains(t, err, "tls.client.keyPath ("+key+")")
}
