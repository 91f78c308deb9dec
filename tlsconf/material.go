package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/pemfile"
)

// material is one load of every file: the server and client TLS configs
// handed to new connections until the next successful reload.
type material struct {
	server *tls.Config // nil: this process cannot serve TLS
	client *tls.Config // the tls.client.* side, whatever tls.enable says
}

// baseConfig is TLS 1.2 and 1.3 with Go's default cipher suites.
func baseConfig() *tls.Config { return &tls.Config{MinVersion: tls.VersionTLS12} }

// loadMaterial reads every file t names. test is the test-mode
// certificate, served when no server certificate is configured.
func loadMaterial(t *config.TLS, test *tls.Certificate) (*material, error) {
	srv, errS := serverConfig(t, test)
	cli, errC := clientConfig(t)
	if err := errors.Join(errS, errC); err != nil {
		return nil, err
	}
	return &material{server: srv, client: cli}, nil
}

// serverConfig follows Java's TlsHelper.buildSslContext(false), except that
// a configured certificate wins over test mode (Java serves the generated
// one whenever test mode is on), and so does a configured
// tls.server.need.client.auth (Java's test mode asks for a certificate
// but lets every client in).
func serverConfig(t *config.TLS, test *tls.Certificate) (*tls.Config, error) {
	if t.Mode() == config.TLSModeDisabled {
		return nil, nil
	}
	cfg := baseConfig()
	if !t.ServerCertConfigured() {
		if test == nil {
			return nil, nil
		}
		// Netty's ClientAuth.OPTIONAL with the JVM's default trust.
		cfg.Certificates = []tls.Certificate{*test}
		return withClientAuth(cfg, t, tls.VerifyClientCertIfGiven)
	}
	cert, err := loadKeyPair("tls.server.certPath", t.ServerCertPath, "tls.server.keyPath", t.ServerKeyPath, t.ServerKeyPassword)
	if err != nil {
		return nil, withPasswordHint(err, "tls.server.keyPassword")
	}
	cfg.Certificates = []tls.Certificate{*cert}
	return withClientAuth(cfg, t, tls.NoClientCert)
}

// withClientAuth returns cfg with clientAuth applied, nil on error.
func withClientAuth(cfg *tls.Config, t *config.TLS, unset tls.ClientAuthType) (*tls.Config, error) {
	if err := clientAuth(cfg, t, unset); err != nil {
		return nil, err
	}
	return cfg, nil
}

// clientAuth sets cfg's client-certificate demand from
// tls.server.need.client.auth (none: unset), and the trust pool of
// tls.server.trustCertPath when tls.server.authClient verifies.
func clientAuth(cfg *tls.Config, t *config.TLS, unset tls.ClientAuthType) error {
	cfg.ClientAuth = unset
	if t.ClientAuth() != config.TLSClientAuthNone {
		cfg.ClientAuth = clientAuthType(t.ClientAuth(), t.ServerAuthClient)
	}
	if !t.ServerAuthClient || t.ServerTrustCertPath == "" {
		return nil
	}
	var err error
	cfg.ClientCAs, err = readPool("tls.server.trustCertPath", t.ServerTrustCertPath)
	return err
}

// clientAuthType maps tls.server.need.client.auth and tls.server.authClient
// (verify the client's chain; Java's InsecureTrustManagerFactory when
// false) to Go's ClientAuthType.
func clientAuthType(need string, verify bool) tls.ClientAuthType {
	switch {
	case need == config.TLSClientAuthRequire && verify:
		return tls.RequireAndVerifyClientCert
	case need == config.TLSClientAuthRequire:
		return tls.RequireAnyClientCert
	case need == config.TLSClientAuthOptional && verify:
		return tls.VerifyClientCertIfGiven
	case need == config.TLSClientAuthOptional:
		return tls.RequestClientCert
	}
	return tls.NoClientCert
}

// clientConfig follows Java's TlsHelper.buildSslContext(true):
// tls.client.authServer=false trusts any server certificate; otherwise the
// chain is verified against tls.client.trustCertPath (the system roots
// when unset). Like Java's Netty client, the host name is not checked:
// brokers are dialled by the IP they registered. Unlike Java, test mode
// does not override the tls.client.* keys (Java then trusts any server and
// presents no certificate): what is configured wins, as on the server side.
func clientConfig(t *config.TLS) (*tls.Config, error) {
	cfg := baseConfig()
	cfg.InsecureSkipVerify = true // the chain is checked below when asked
	if t.ClientAuthServer {
		roots, err := clientRoots(t)
		if err != nil {
			return nil, err
		}
		cfg.VerifyPeerCertificate = verifyChain(roots)
	}
	if t.ClientCertPath != "" && t.ClientKeyPath != "" {
		cert, err := loadKeyPair("tls.client.certPath", t.ClientCertPath, "tls.client.keyPath", t.ClientKeyPath, t.ClientKeyPassword)
		if err != nil {
			return nil, withPasswordHint(err, "tls.client.keyPassword")
		}
		cfg.Certificates = []tls.Certificate{*cert}
	}
	return cfg, nil
}

func clientRoots(t *config.TLS) (*x509.CertPool, error) {
	if t.ClientTrustCertPath == "" {
		return x509.SystemCertPool()
	}
	return readPool("tls.client.trustCertPath", t.ClientTrustCertPath)
}

// verifyChain checks the server's chain against roots, without a host name.
func verifyChain(roots *x509.CertPool) func([][]byte, [][]*x509.Certificate) error {
	return func(raw [][]byte, _ [][]*x509.Certificate) error {
		if err := pemfile.VerifyRawChain(raw, roots, x509.ExtKeyUsageServerAuth); err != nil {
			return fmt.Errorf("tls: %w", err)
		}
		return nil
	}
}

func withPasswordHint(err error, passwordKey string) error {
	if errors.Is(err, ErrKeyPassword) {
		return fmt.Errorf("%w (check %s)", err, passwordKey)
	}
	return err
}
