package tlsconf

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"

	"github.com/rmqgo/nameserver/config"
)

// loadKeyPair reads a PEM certificate chain and its private key (see
// parseKey), naming the key and file of whatever fails.
func loadKeyPair(certKey, certPath, keyKey, keyPath, password string) (*tls.Certificate, error) {
	chain, err := readCerts(certKey, certPath)
	if err != nil {
		return nil, err
	}
	keyPEM, err := config.ReadTLSFile(keyPath)
	if err != nil {
		return nil, fmt.Errorf("%w: %s (%s): %w", ErrMaterial, keyKey, keyPath, err)
	}
	key, err := parseKey(keyPEM, password)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", keyKey, keyPath, err)
	}
	type publicKeyEqualer interface{ Equal(crypto.PublicKey) bool }
	pub, ok := key.Public().(publicKeyEqualer)
	if !ok || !pub.Equal(chain[0].PublicKey) {
		return nil, fmt.Errorf("%w: %s (%s) does not hold the key of %s (%s)", ErrMaterial, keyKey, keyPath, certKey, certPath)
	}
	if err := canSign(key); err != nil {
		return nil, fmt.Errorf("%w: %s (%s) cannot sign a TLS handshake: %w", ErrMaterial, keyKey, keyPath, err)
	}
	c := &tls.Certificate{PrivateKey: key, Leaf: chain[0]}
	for _, x := range chain {
		c.Certificate = append(c.Certificate, x.Raw)
	}
	return c, nil
}

// canSign signs a test digest with key, as every handshake will: a key
// the crypto packages refuse (RSA under 1024 bits) would otherwise load
// and then fail each handshake.
func canSign(key crypto.Signer) error {
	digest := sha256.Sum256([]byte("rmqgo tls key check"))
	var err error
	if _, ok := key.(ed25519.PrivateKey); ok {
		_, err = key.Sign(rand.Reader, digest[:], crypto.Hash(0))
	} else {
		_, err = key.Sign(rand.Reader, digest[:], crypto.SHA256)
	}
	return err
}

// readCerts returns every CERTIFICATE block of a PEM file, at least one.
func readCerts(key, path string) ([]*x509.Certificate, error) {
	data, err := config.ReadTLSFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s (%s): %w", ErrMaterial, key, path, err)
	}
	var out []*x509.Certificate
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: %s (%s): %w", ErrMaterial, key, path, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s (%s) holds no PEM certificate", ErrMaterial, key, path)
	}
	return out, nil
}

// readPool returns a pool of every certificate of a PEM file.
func readPool(key, path string) (*x509.CertPool, error) {
	certs, err := readCerts(key, path)
	if err != nil {
		return nil, err
	}
	p := x509.NewCertPool()
	for _, c := range certs {
		p.AddCert(c)
	}
	return p, nil
}

// parseKey decodes the first private key of a PEM file: PKCS#8 ("PRIVATE
// KEY"), PKCS#8 encrypted with PBES2 ("ENCRYPTED PRIVATE KEY", needs the
// password), PKCS#1 ("RSA PRIVATE KEY") or SEC 1 ("EC PRIVATE KEY").
// Legacy OpenSSL-encrypted PEM (Proc-Type: 4,ENCRYPTED) is refused: Java
// does not read it either.
func parseKey(data []byte, password string) (crypto.Signer, error) {
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if _, enc := block.Headers["Proc-Type"]; enc {
			return nil, fmt.Errorf("%w: legacy encrypted PEM; convert with openssl pkcs8 -topk8 -v2 aes-256-cbc", ErrUnsupportedKey)
		}
		switch block.Type {
		case "PRIVATE KEY":
			return asSigner(x509.ParsePKCS8PrivateKey(block.Bytes))
		case "ENCRYPTED PRIVATE KEY":
			return parseEncrypted(block.Bytes, password)
		case "RSA PRIVATE KEY":
			return asSigner(x509.ParsePKCS1PrivateKey(block.Bytes))
		case "EC PRIVATE KEY":
			return asSigner(x509.ParseECPrivateKey(block.Bytes))
		}
	}
	return nil, fmt.Errorf("%w: no PEM private key", ErrMaterial)
}

func parseEncrypted(der []byte, password string) (crypto.Signer, error) {
	if password == "" {
		return nil, fmt.Errorf("%w: the key is encrypted and no password is set", ErrKeyPassword)
	}
	plain, err := decryptPKCS8(der, password)
	if err != nil {
		return nil, err
	}
	k, err := asSigner(x509.ParsePKCS8PrivateKey(plain))
	if err != nil {
		return nil, ErrKeyPassword // a wrong password that happened to unpad
	}
	return k, nil
}

func asSigner[K any](k K, err error) (crypto.Signer, error) {
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMaterial, err)
	}
	s, ok := any(k).(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%w: key type %T cannot sign", ErrMaterial, k)
	}
	return s, nil
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
