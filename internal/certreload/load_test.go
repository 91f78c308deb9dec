package certreload

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testcerts"
)

func write(t *testing.T, dir, name string, data []byte) string {
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, data, 0o600))
	return p
}

func pemBlock(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

func TestLoadAcceptsPKCS8AndECKeys(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	leaf := ca.Issue(t, testcerts.LeafOptions{})
	f := leaf.WriteFiles(t, t.TempDir(), "n0", ca)
	m, err := Load(f.Cert, f.Key, f.CA)
	require.NoError(t, err)
	require.Equal(t, leaf.Cert.SerialNumber, m.Cert.Leaf.SerialNumber)

	ec, err := x509.MarshalECPrivateKey(leaf.Key)
	require.NoError(t, err)
	ecPath := write(t, t.TempDir(), "ec.key", pemBlock("EC PRIVATE KEY", ec))
	_, err = Load(f.Cert, ecPath, f.CA)
	require.NoError(t, err)
}

func TestLoadAcceptsPKCS1Key(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "rsa"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	dir := t.TempDir()
	cert := write(t, dir, "rsa.crt", pemBlock("CERTIFICATE", der))
	keyPath := write(t, dir, "rsa.key", pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)))
	_, err = Load(cert, keyPath, cert)
	require.NoError(t, err)
}

// requireFileErrors checks that err holds exactly the given roles, each
// naming its path.
func requireFileErrors(t *testing.T, err error, want map[Role]string) {
	t.Helper()
	require.ErrorIs(t, err, ErrFile)
	joined, ok := err.(interface{ Unwrap() []error })
	errs := []error{err}
	if ok {
		if _, isFile := err.(*FileError); !isFile {
			errs = joined.Unwrap()
		}
	}
	got := map[Role]string{}
	for _, e := range errs {
		var fe *FileError
		require.ErrorAs(t, e, &fe)
		got[fe.Role] = fe.Path
		require.Contains(t, e.Error(), fe.Path)
	}
	require.Equal(t, want, got)
}

func TestLoadReportsEveryBadFile(t *testing.T) {
	dir := t.TempDir()
	garbage := write(t, dir, "garbage.pem", []byte("not pem at all"))
	missing := filepath.Join(dir, "missing.pem")
	_, err := Load(garbage, missing, garbage)
	requireFileErrors(t, err, map[Role]string{RoleCert: garbage, RoleKey: missing, RoleTrust: garbage})
	t.Log(err)
}

func TestLoadRefusesEncryptedMismatchedAndExpired(t *testing.T) {
	ca := testcerts.NewCA(t, "raft-ca")
	f := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "n0", ca)
	other := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "n1", ca)
	dir := t.TempDir()

	enc := write(t, dir, "enc.key", pemBlock("ENCRYPTED PRIVATE KEY", []byte{1, 2, 3}))
	_, err := Load(f.Cert, enc, f.CA)
	requireFileErrors(t, err, map[Role]string{RoleKey: enc})
	require.ErrorContains(t, err, "encrypted private keys are not supported")

	_, err = Load(f.Cert, other.Key, f.CA)
	requireFileErrors(t, err, map[Role]string{RoleKey: other.Key})
	require.ErrorContains(t, err, "does not match")

	old := ca.Issue(t, testcerts.LeafOptions{NotBefore: time.Now().Add(-2 * time.Hour),
		NotAfter: time.Now().Add(-time.Hour)}).WriteFiles(t, t.TempDir(), "old", ca)
	_, err = Load(old.Cert, old.Key, old.CA)
	requireFileErrors(t, err, map[Role]string{RoleCert: old.Cert})
	require.ErrorContains(t, err, "expired")
}
