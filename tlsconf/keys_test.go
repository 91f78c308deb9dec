package tlsconf

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/pemfile"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// TestParseKeyFormats: every fixture of testdata/README.md decodes to the
// same key, or is refused with the error that says why.
func TestParseKeyFormats(t *testing.T) {
	want, err := pemfile.ParseKey(readFixture(t, "ec-sec1.key"), "")
	require.NoError(t, err)
	for _, name := range []string{"ec-pkcs8.key", "ec-aes256-sha256.key", "ec-aes128-sha1.key", "ec-aes192-sha512.key", "ec-des3.key"} {
		k, err := pemfile.ParseKey(readFixture(t, name), "changeit")
		require.NoError(t, err, name)
		require.True(t, want.(*ecdsa.PrivateKey).Equal(k), name)
	}
	rsa1, err := pemfile.ParseKey(readFixture(t, "rsa-pkcs1.key"), "")
	require.NoError(t, err)
	rsa8, err := pemfile.ParseKey(readFixture(t, "rsa-aes256.key"), "changeit")
	require.NoError(t, err)
	require.True(t, rsa1.Public().(*rsa.PublicKey).Equal(rsa8.Public()))

	_, err = pemfile.ParseKey(readFixture(t, "ec-aes256-sha256.key"), "wrong")
	require.ErrorIs(t, err, ErrKeyPassword)
	_, err = pemfile.ParseKey(readFixture(t, "ec-aes256-sha256.key"), "")
	require.ErrorIs(t, err, ErrKeyPassword)
	_, err = pemfile.ParseKey(readFixture(t, "ec-pbes1.key"), "changeit")
	require.ErrorIs(t, err, ErrUnsupportedKey)
	_, err = pemfile.ParseKey(readFixture(t, "ec-legacy-encrypted.key"), "changeit")
	require.ErrorIs(t, err, ErrUnsupportedKey)
	_, err = pemfile.ParseKey([]byte("not a key"), "")
	require.ErrorIs(t, err, ErrMaterial)
}

// TestServerWithEncryptedKey serves an encrypted PKCS#8 key end to end.
func TestServerWithEncryptedKey(t *testing.T) {
	c := config.DefaultTLS()
	c.ServerMode, c.ServerCertPath = config.TLSModeEnforcing, filepath.Join("testdata", "ec.crt")
	c.ServerKeyPath, c.ServerKeyPassword = filepath.Join("testdata", "ec-aes256-sha256.key"), "changeit"
	m := newManager(t, c)
	c.Enable = true
	require.NoError(t, echo(t, startEcho(t, m), newManager(t, c).Client()))

	c.ServerKeyPassword = "wrong"
	_, err := New(c, testLogger(t))
	require.ErrorIs(t, err, ErrKeyPassword)
	requireNames(t, err, "tls.server.keyPath", "ec-aes256-sha256.key", "tls.server.keyPassword")
}

// TestBadFilesNameKeyAndFile: each broken file is reported with its key.
func TestBadFilesNameKeyAndFile(t *testing.T) {
	p := newPKI(t)
	garbage := filepath.Join(t.TempDir(), "garbage.pem")
	require.NoError(t, os.WriteFile(garbage, []byte("hello"), 0o600))
	other := newPKI(t)
	for _, tc := range []struct {
		mutate func(*config.TLS)
		names  []string
	}{
		{func(c *config.TLS) { c.ServerCertPath = garbage }, []string{"tls.server.certPath", garbage}},
		{func(c *config.TLS) { c.ServerKeyPath = garbage }, []string{"tls.server.keyPath", garbage}},
		{func(c *config.TLS) { c.ServerKeyPath = other.files.Key }, []string{"tls.server.keyPath", "does not hold the key"}},
		{func(c *config.TLS) { c.ServerAuthClient, c.ServerTrustCertPath = true, garbage }, []string{"tls.server.trustCertPath", garbage}},
		{func(c *config.TLS) { c.ClientAuthServer, c.ClientTrustCertPath = true, garbage }, []string{"tls.client.trustCertPath", garbage}},
	} {
		c := p.serverTLS(config.TLSModePermissive)
		tc.mutate(c)
		_, err := New(c, testLogger(t))
		requireNames(t, err, tc.names...)
	}
}

func requireNames(t *testing.T, err error, names ...string) {
	t.Helper()
	require.Error(t, err)
	for _, n := range names {
		require.Contains(t, err.Error(), n)
	}
}

// FuzzParseKey: no key file, however malformed, panics the loader; its
// seeds are the fixtures (run in make test).
func FuzzParseKey(f *testing.F) {
	for _, name := range []string{"ec-sec1.key", "ec-pkcs8.key", "ec-aes256-sha256.key", "ec-des3.key", "ec-pbes1.key",
		"ec-legacy-encrypted.key", "rsa-pkcs1.key"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(f, err)
		f.Add(b, "changeit")
	}
	f.Fuzz(func(t *testing.T, data []byte, password string) {
		k, err := pemfile.ParseKey(data, password)
		if err == nil {
			require.NotNil(t, k)
		}
	})
}
