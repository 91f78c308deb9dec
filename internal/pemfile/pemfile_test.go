package pemfile

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/internal/watchedfile"
)

// TestCertsKeyPair: a chain and its key pair up; another leaf's key, a
// file without a certificate or key, a directory and a file over MaxBytes
// are refused with the error that says why.
func TestCertsKeyPair(t *testing.T) {
	ca := testcerts.NewCA(t, "ca")
	f := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "n0", ca)
	other := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "n1", ca)
	chain, err := Certs(f.Cert)
	require.NoError(t, err)
	key, err := Key(f.Key, "")
	require.NoError(t, err)
	c, err := Pair(chain, key)
	require.NoError(t, err)
	require.Equal(t, chain[0], c.Leaf)

	otherKey, err := Key(other.Key, "")
	require.NoError(t, err)
	_, err = Pair(chain, otherKey)
	require.ErrorIs(t, err, ErrKeyMismatch)
	_, err = Certs(f.Key)
	require.ErrorIs(t, err, ErrMaterial)
	_, err = Key(f.Cert, "")
	require.ErrorIs(t, err, ErrMaterial)
	_, err = Certs(t.TempDir())
	require.ErrorIs(t, err, watchedfile.ErrNotRegular)

	huge := filepath.Join(t.TempDir(), "huge.pem")
	require.NoError(t, os.WriteFile(huge, nil, 0o600))
	require.NoError(t, os.Truncate(huge, MaxBytes+1)) // sparse
	_, err = Read(huge)
	require.ErrorIs(t, err, watchedfile.ErrTooLarge)
}

// TestVerifyChainWithoutHostName: a leaf of the pool's CA verifies
// whatever names it carries; another CA's leaf, a wrong usage, no
// certificate and garbage do not.
func TestVerifyChainWithoutHostName(t *testing.T) {
	ca, stranger := testcerts.NewCA(t, "ca"), testcerts.NewCA(t, "stranger")
	leaf := ca.Issue(t, testcerts.LeafOptions{DNSNames: []string{"elsewhere.example"}})
	require.NoError(t, VerifyChain([]*x509.Certificate{leaf.Cert}, ca.Pool(), x509.ExtKeyUsageServerAuth))
	require.NoError(t, VerifyRawChain([][]byte{leaf.Cert.Raw}, ca.Pool(), x509.ExtKeyUsageClientAuth))

	out := ca.Issue(t, testcerts.LeafOptions{ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	require.Error(t, VerifyChain([]*x509.Certificate{out.Cert}, ca.Pool(), x509.ExtKeyUsageServerAuth))
	alien := stranger.Issue(t, testcerts.LeafOptions{})
	require.Error(t, VerifyChain([]*x509.Certificate{alien.Cert}, ca.Pool(), x509.ExtKeyUsageServerAuth))
	require.ErrorIs(t, VerifyChain(nil, ca.Pool(), x509.ExtKeyUsageServerAuth), ErrNoPeerCertificate)
	require.Error(t, VerifyRawChain([][]byte{{1, 2, 3}}, ca.Pool(), x509.ExtKeyUsageServerAuth))
}
