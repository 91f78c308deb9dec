package pemfile

import (
	"crypto/x509"
	"fmt"
)

// VerifyChain checks a peer's chain (leaf first, then the intermediates
// it sent) against roots for usage: signatures, validity now and the
// extended key usage, without a host name (peers are dialled by IP, so
// every certificate the roots signed is a trusted peer).
func VerifyChain(certs []*x509.Certificate, roots *x509.CertPool, usage x509.ExtKeyUsage) error {
	if len(certs) == 0 {
		return ErrNoPeerCertificate
	}
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	_, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter,
		KeyUsages: []x509.ExtKeyUsage{usage}})
	return err
}

// VerifyRawChain parses a peer's DER chain (as tls.Config's
// VerifyPeerCertificate gets it) and verifies it (see VerifyChain).
func VerifyRawChain(raw [][]byte, roots *x509.CertPool, usage x509.ExtKeyUsage) error {
	certs := make([]*x509.Certificate, 0, len(raw))
	for _, der := range raw {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return fmt.Errorf("bad peer certificate: %w", err)
		}
		certs = append(certs, c)
	}
	return VerifyChain(certs, roots, usage)
}
