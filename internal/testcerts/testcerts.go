package testcerts

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var serial atomic.Int64

// CA is a certificate authority that signs leaves.
type CA struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	PEM  []byte // the certificate, PEM-encoded
}

// Leaf is a certificate signed by a CA, with its key.
type Leaf struct {
	Cert    *x509.Certificate
	Key     *ecdsa.PrivateKey
	CertPEM []byte
	KeyPEM  []byte // PKCS#8, unencrypted
}

// LeafOptions shapes a leaf; the zero value is a certificate for 127.0.0.1,
// ::1 and localhost valid from an hour ago for a day, usable by servers
// and clients alike.
type LeafOptions struct {
	CommonName string
	IPs        []net.IP // nil → 127.0.0.1 and ::1
	DNSNames   []string // nil → localhost
	NotBefore  time.Time
	NotAfter   time.Time
	// ExtKeyUsage nil → server and client authentication.
	ExtKeyUsage []x509.ExtKeyUsage
}

// NewCA returns a fresh self-signed authority named name.
func NewCA(t testing.TB, name string) *CA {
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial.Add(1)),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &CA{Cert: cert, Key: key, PEM: pemOf("CERTIFICATE", der)}
}

// Issue signs a new leaf described by opts.
func (ca *CA) Issue(t testing.TB, opts LeafOptions) *Leaf {
	opts = opts.withDefaults()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial.Add(1)),
		Subject:      pkix.Name{CommonName: opts.CommonName},
		NotBefore:    opts.NotBefore,
		NotAfter:     opts.NotAfter,
		IPAddresses:  opts.IPs,
		DNSNames:     opts.DNSNames,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  opts.ExtKeyUsage,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	return &Leaf{Cert: cert, Key: key, CertPEM: pemOf("CERTIFICATE", der), KeyPEM: pemOf("PRIVATE KEY", pk)}
}

// Pool returns a certificate pool holding only ca.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// TLS returns the leaf as a tls.Certificate.
func (l *Leaf) TLS(t testing.TB) tls.Certificate {
	c, err := tls.X509KeyPair(l.CertPEM, l.KeyPEM)
	require.NoError(t, err)
	return c
}

// Files holds the paths WriteFiles wrote.
type Files struct{ Cert, Key, CA string }

// WriteFiles writes the leaf's certificate and key and ca's certificate as
// PEM files named prefix.crt, prefix.key and prefix-ca.crt in dir, replacing
// files already there (as an operator's rotation does), and returns their
// paths.
func (l *Leaf) WriteFiles(t testing.TB, dir, prefix string, ca *CA) Files {
	f := Files{
		Cert: filepath.Join(dir, prefix+".crt"),
		Key:  filepath.Join(dir, prefix+".key"),
		CA:   filepath.Join(dir, prefix+"-ca.crt"),
	}
	writeAtomic(t, f.Cert, l.CertPEM)
	writeAtomic(t, f.Key, l.KeyPEM)
	writeAtomic(t, f.CA, ca.PEM)
	return f
}

func (o LeafOptions) withDefaults() LeafOptions {
	if o.CommonName == "" {
		o.CommonName = "localhost"
	}
	if o.IPs == nil {
		o.IPs = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	}
	if o.DNSNames == nil {
		o.DNSNames = []string{"localhost"}
	}
	if o.NotBefore.IsZero() {
		o.NotBefore = time.Now().Add(-time.Hour)
	}
	if o.NotAfter.IsZero() {
		o.NotAfter = time.Now().Add(24 * time.Hour)
	}
	if o.ExtKeyUsage == nil {
		o.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	}
	return o
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	return k
}

func pemOf(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

// writeAtomic replaces path by a rename, so a reader never sees half a file.
func writeAtomic(t testing.TB, path string, data []byte) {
	tmp := path + ".tmp"
	require.NoError(t, os.WriteFile(tmp, data, 0o600))
	require.NoError(t, os.Rename(tmp, path))
}
