package testcerts

import (
	"crypto/x509"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestIssuedLeafVerifiesAgainstItsCAOnly(t *testing.T) {
	ca, other := NewCA(t, "ca"), NewCA(t, "other")
	leaf := ca.Issue(t, LeafOptions{})
	_, err := leaf.Cert.Verify(x509.VerifyOptions{Roots: ca.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	require.NoError(t, err)
	_, err = leaf.Cert.Verify(x509.VerifyOptions{Roots: other.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	require.Error(t, err)
	expired := ca.Issue(t, LeafOptions{NotBefore: time.Now().Add(-2 * time.Hour), NotAfter: time.Now().Add(-time.Hour)})
	_, err = expired.Cert.Verify(x509.VerifyOptions{Roots: ca.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	require.Error(t, err)
	f := leaf.WriteFiles(t, t.TempDir(), "node", ca)
	require.FileExists(t, f.Key)
	_ = leaf.TLS(t)
}
