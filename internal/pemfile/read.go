package pemfile

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"

	"github.com/rmqgo/nameserver/internal/watchedfile"
)

// MaxBytes bounds every PEM file read: a system CA bundle is a few hundred
// KiB, a certificate or key a few KiB.
const MaxBytes = 4 << 20

// Read returns the content of the regular file at path (a symbolic link
// to one, as Kubernetes mounts secrets, is fine) of at most MaxBytes. A
// FIFO, device or directory is refused at once (watchedfile.ErrNotRegular),
// a larger file without being read whole (watchedfile.ErrTooLarge).
// Errors name path.
func Read(path string) ([]byte, error) {
	data, _, err := watchedfile.Read(path, MaxBytes)
	return data, err
}

// Certs returns every CERTIFICATE block of the PEM file at path, at
// least one. Errors wrap ErrMaterial.
func Certs(path string) ([]*x509.Certificate, error) {
	data, err := Read(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMaterial, err)
	}
	return ParseCerts(data)
}

// ParseCerts returns every CERTIFICATE block of PEM data, at least one.
// Errors wrap ErrMaterial.
func ParseCerts(data []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMaterial, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no PEM certificate", ErrMaterial)
	}
	return out, nil
}

// Pool returns a pool of certs.
func Pool(certs []*x509.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	for _, c := range certs {
		p.AddCert(c)
	}
	return p
}
