package certreload

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"

	"github.com/rmqgo/nameserver/internal/pemfile"
)

// ServerConfig returns a server-side config for mutual TLS: TLS 1.2 or
// 1.3 with Go's default cipher suites, the current certificate, and a
// client certificate required and verified against the current trusted
// CAs (chain, validity and the client-auth usage; no host name).
func (r *Reloader) ServerConfig() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			r.MaybeReload()
			return r.Certificate(), nil
		},
		// The chain is verified by VerifyConnection against the pool of
		// the moment, so a reloaded CA file applies to the next handshake.
		ClientAuth:       tls.RequireAnyClientCert,
		VerifyConnection: r.verifier(x509.ExtKeyUsageClientAuth),
	}
}

// ClientConfig returns the matching client-side config: it presents the
// current certificate and verifies the server's chain against the current
// trusted CAs (chain, validity and the server-auth usage). Peers are
// dialled by IP:port, so the host name is not checked: every certificate
// the trusted CAs signed is a trusted peer.
func (r *Reloader) ClientConfig() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			r.MaybeReload()
			return r.Certificate(), nil
		},
		// Go's own verification would check the host name; VerifyConnection
		// checks the chain instead (it runs even with this set).
		InsecureSkipVerify: true, //nolint:gosec // verified by VerifyConnection
		VerifyConnection:   r.verifier(x509.ExtKeyUsageServerAuth),
	}
}

// verifier checks the peer's chain against the current pool.
func (r *Reloader) verifier(usage x509.ExtKeyUsage) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if err := r.verify(cs.PeerCertificates, usage); err != nil {
			r.refused.Add(1)
			return err
		}
		return nil
	}
}

func (r *Reloader) verify(certs []*x509.Certificate, usage x509.ExtKeyUsage) error {
	err := pemfile.VerifyChain(certs, r.Pool(), usage)
	switch {
	case err == nil:
		return nil
	case len(certs) == 0:
		return fmt.Errorf("%w: %w", ErrUntrustedPeer, err)
	}
	return fmt.Errorf("%w: %s (serial %x): %w", ErrUntrustedPeer, certs[0].Subject, certs[0].SerialNumber, err)
}
