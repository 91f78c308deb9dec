package tlsconf

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/rmqgo/nameserver/internal/pemfile"
)

// loadKeyPair reads a PEM certificate chain and its private key (see
// pemfile.ParseKey), naming the key and file of whatever fails.
func loadKeyPair(certKey, certPath, keyKey, keyPath, password string) (*tls.Certificate, error) {
	chain, err := pemfile.Certs(certPath)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", certKey, certPath, err)
	}
	key, err := pemfile.Key(keyPath, password)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", keyKey, keyPath, err)
	}
	c, err := pemfile.Pair(chain, key)
	switch {
	case errors.Is(err, pemfile.ErrKeyMismatch):
		return nil, fmt.Errorf("%w: %s (%s) does not hold the key of %s (%s)", ErrMaterial, keyKey, keyPath, certKey, certPath)
	case err != nil:
		return nil, fmt.Errorf("%s (%s): %w", keyKey, keyPath, err)
	}
	return c, nil
}

// readPool returns a pool of every certificate of a PEM file.
func readPool(key, path string) (*x509.CertPool, error) {
	certs, err := pemfile.Certs(path)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", key, path, err)
	}
	return pemfile.Pool(certs), nil
}

// selfSigned makes the test-mode certificate (Java: Netty's
// SelfSignedCertificate under tls.test.mode.enable): ECDSA P-256, in
// memory only, valid from an hour ago for a year, named after the host.
func selfSigned(host string) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("%w: test certificate key: %w", ErrMaterial, err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, fmt.Errorf("%w: test certificate serial: %w", ErrMaterial, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host, Organization: []string{"rmqgo test certificate"}},
		DNSNames:     []string{host},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("%w: test certificate: %w", ErrMaterial, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("%w: test certificate: %w", ErrMaterial, err)
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}
