package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Key types of the tls workload's server certificate (-tls-key).
const (
	keyECDSA = "ecdsa" // P-256, what the test-mode certificate uses
	keyRSA   = "rsa"   // 2048 bits, what most operator PKIs issue
)

// rsaBits is the size of an -tls-key rsa key.
const rsaBits = 2048

// benchPKI is a CA generated in memory at start and a server certificate
// it signed for 127.0.0.1, written as PEM files for the NameServer child;
// clients verify the server against the CA.
type benchPKI struct {
	certPath, keyPath string
	roots             *x509.CertPool
}

// newBenchPKI makes the CA and the server certificate (key type kind) and
// writes the server's certificate and key under dir.
func newBenchPKI(dir, kind string) (*benchPKI, error) {
	caKey, err := newSigner(keyECDSA)
	if err != nil {
		return nil, err
	}
	caTmpl := certTemplate("loadgen bench CA")
	caTmpl.IsCA, caTmpl.BasicConstraintsValid = true, true
	caTmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return nil, fmt.Errorf("bench CA: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	leafKey, err := newSigner(kind)
	if err != nil {
		return nil, err
	}
	p := &benchPKI{roots: x509.NewCertPool()}
	p.roots.AddCert(ca)
	return p, p.writeLeaf(dir, ca, caKey, leafKey)
}

// writeLeaf signs the server certificate for leafKey and writes it and
// the key (PKCS#8) under dir.
func (p *benchPKI) writeLeaf(dir string, ca *x509.Certificate, caKey, leafKey crypto.Signer) error {
	tmpl := certTemplate("127.0.0.1")
	tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, leafKey.Public(), caKey)
	if err != nil {
		return fmt.Errorf("bench server certificate: %w", err)
	}
	pk, err := x509.MarshalPKCS8PrivateKey(leafKey)
	if err != nil {
		return err
	}
	p.certPath, p.keyPath = filepath.Join(dir, "bench-server.crt"), filepath.Join(dir, "bench-server.key")
	return errors.Join(
		os.WriteFile(p.certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600),
		os.WriteFile(p.keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}), 0o600))
}

// certTemplate is a certificate named cn, valid from an hour ago for a day.
func certTemplate(cn string) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn, Organization: []string{"rmqgo loadgen"}},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
	}
}

// newSigner generates a key of kind.
func newSigner(kind string) (crypto.Signer, error) {
	switch kind {
	case keyECDSA:
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case keyRSA:
		return rsa.GenerateKey(rand.Reader, rsaBits)
	}
	return nil, fmt.Errorf("unknown key type %q (want %s or %s)", kind, keyECDSA, keyRSA)
}

// clientConfig is what the benchmark's TLS clients use: the server's chain
// and name are verified against the CA, sessions are not resumed (each
// new connection pays the full handshake, as after a NameServer restart).
func (p *benchPKI) clientConfig() *tls.Config {
	return &tls.Config{RootCAs: p.roots, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}

// dialTLS returns a dialFunc that runs the TLS handshake before returning.
func (p *benchPKI) dialTLS() dialFunc {
	cfg := p.clientConfig()
	return func(addr string) (net.Conn, error) {
		nc, err := dialTCP(addr)
		if err != nil {
			return nil, err
		}
		tc := tls.Client(nc, cfg)
		_ = tc.SetDeadline(time.Now().Add(ioTimeout))
		if err := tc.Handshake(); err != nil {
			_ = nc.Close()
			return nil, fmt.Errorf("tls handshake: %w", err)
		}
		return tc, nil
	}
}
