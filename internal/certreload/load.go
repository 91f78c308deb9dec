package certreload

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"time"

	"github.com/rmqgo/nameserver/internal/pemfile"
)

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
	cert, err := pemfile.Pair(chain, key)
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

// errEncryptedKey replaces pemfile's password errors: these keys have no
// password setting.
var errEncryptedKey = errors.New("encrypted private keys are not supported: decrypt it (openssl pkey)")

// readCerts parses every CERTIFICATE block of path (at least one), read
// by pemfile (a regular file of at most pemfile.MaxBytes).
func readCerts(role Role, path string) ([]*x509.Certificate, error) {
	if path == "" {
		return nil, &FileError{Role: role, Path: `""`, Err: errors.New("no path given")}
	}
	certs, err := pemfile.Certs(path)
	if err != nil {
		return nil, &FileError{Role: role, Path: path, Err: err}
	}
	return certs, nil
}

// readKey parses the first private key block of path: PKCS#8
// ("PRIVATE KEY"), PKCS#1 ("RSA PRIVATE KEY") or SEC 1 ("EC PRIVATE
// KEY"), unencrypted.
func readKey(path string) (crypto.Signer, error) {
	if path == "" {
		return nil, &FileError{Role: RoleKey, Path: `""`, Err: errors.New("no path given")}
	}
	k, err := pemfile.Key(path, "")
	if errors.Is(err, pemfile.ErrKeyPassword) || errors.Is(err, pemfile.ErrUnsupportedKey) {
		err = errEncryptedKey
	}
	if err != nil {
		return nil, &FileError{Role: RoleKey, Path: path, Err: err}
	}
	return k, nil
}

func checkValidNow(c *x509.Certificate, now time.Time) error {
	switch {
	case now.Before(c.NotBefore):
		return fmt.Errorf("%w: not valid before %s", ErrNotValidNow, c.NotBefore.UTC().Format(time.RFC3339))
	case now.After(c.NotAfter):
		return fmt.Errorf("%w: expired at %s", ErrNotValidNow, c.NotAfter.UTC().Format(time.RFC3339))
	}
	return nil
}
