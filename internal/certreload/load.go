package certreload

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"time"
)

// maxFileBytes bounds what is read of each file: PEM chains and CA
// bundles are a few kilobytes; a larger file is a mistake.
const maxFileBytes = 1 << 20

// Material is one consistent load of the three files.
type Material struct {
	Cert *tls.Certificate // Leaf is set
	Pool *x509.CertPool
	// Subjects of the trusted CAs, for logs.
	Trusted []string
}

// Load reads and checks the certificate, key and CA files. The
// certificate must be valid now and match the key; the CA file must hold
// at least one certificate. Every bad file is reported, as a *FileError,
// joined.
func Load(certPath, keyPath, caPath string) (*Material, error) {
	chain, certErr := readCerts(RoleCert, certPath)
	key, keyErr := readKey(keyPath)
	cas, caErr := readCerts(RoleTrust, caPath)
	if err := errors.Join(certErr, keyErr, caErr); err != nil {
		return nil, err
	}
	if err := checkValidNow(chain[0], time.Now()); err != nil {
		return nil, &FileError{Role: RoleCert, Path: certPath, Err: err}
	}
	cert, err := pair(chain, key)
	if err != nil {
		return nil, &FileError{Role: RoleKey, Path: keyPath,
			Err: fmt.Errorf("does not belong to the certificate in %s: %w", certPath, err)}
	}
	m := &Material{Cert: cert, Pool: x509.NewCertPool()}
	for _, ca := range cas {
		m.Pool.AddCert(ca)
		m.Trusted = append(m.Trusted, ca.Subject.String())
	}
	return m, nil
}

// readFile reads at most maxFileBytes of path.
func readFile(role Role, path string) ([]byte, error) {
	if path == "" {
		return nil, &FileError{Role: role, Path: `""`, Err: errors.New("no path given")}
	}
	st, err := os.Stat(path)
	if err == nil && st.Size() > maxFileBytes {
		err = fmt.Errorf("%d bytes, more than the %d allowed", st.Size(), maxFileBytes)
	}
	var data []byte
	if err == nil {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, &FileError{Role: role, Path: path, Err: err}
	}
	return data, nil
}

// readCerts parses every CERTIFICATE block of path (at least one).
func readCerts(role Role, path string) ([]*x509.Certificate, error) {
	data, err := readFile(role, path)
	if err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, &FileError{Role: role, Path: path, Err: err}
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, &FileError{Role: role, Path: path, Err: errors.New("no PEM CERTIFICATE block")}
	}
	return certs, nil
}

// readKey parses the first private key block of path: PKCS#8
// ("PRIVATE KEY"), PKCS#1 ("RSA PRIVATE KEY") or SEC 1 ("EC PRIVATE
// KEY"), unencrypted.
func readKey(path string) (crypto.PrivateKey, error) {
	data, err := readFile(RoleKey, path)
	if err != nil {
		return nil, err
	}
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if k, ok, err := parseKeyBlock(block); ok {
			if err != nil {
				return nil, &FileError{Role: RoleKey, Path: path, Err: err}
			}
			return k, nil
		}
	}
	return nil, &FileError{Role: RoleKey, Path: path, Err: errors.New("no PEM private key block")}
}

// parseKeyBlock parses block if it is a private key block (ok).
func parseKeyBlock(block *pem.Block) (k crypto.PrivateKey, ok bool, err error) {
	if block.Type == "ENCRYPTED PRIVATE KEY" || block.Headers["Proc-Type"] != "" {
		return nil, true, errors.New("encrypted private keys are not supported: decrypt it (openssl pkey)")
	}
	switch block.Type {
	case "PRIVATE KEY":
		k, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		k, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		k, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		return nil, false, nil
	}
	return k, true, err
}

// pair builds the tls.Certificate and checks that key matches the leaf.
func pair(chain []*x509.Certificate, key crypto.PrivateKey) (*tls.Certificate, error) {
	c := &tls.Certificate{PrivateKey: key, Leaf: chain[0]}
	for _, x := range chain {
		c.Certificate = append(c.Certificate, x.Raw)
	}
	pub, ok := key.(interface{ Public() crypto.PublicKey })
	if !ok {
		return nil, errors.New("unsupported key type")
	}
	eq, ok := pub.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !eq.Equal(chain[0].PublicKey) {
		return nil, errors.New("the private key does not match the certificate's public key")
	}
	return c, nil
}

func checkValidNow(c *x509.Certificate, now time.Time) error {
	switch {
	case now.Before(c.NotBefore):
		return fmt.Errorf("not valid before %s", c.NotBefore.UTC().Format(time.RFC3339))
	case now.After(c.NotAfter):
		return fmt.Errorf("expired at %s", c.NotAfter.UTC().Format(time.RFC3339))
	}
	return nil
}
