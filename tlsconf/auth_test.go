package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestClientAuth: tls.server.need.client.auth with tls.server.authClient
// (verify against tls.server.trustCertPath) or without (any certificate,
// Java's InsecureTrustManagerFactory).
func TestClientAuth(t *testing.T) {
	p := newPKI(t)
	mine := p.ca.Issue(t, testcerts.LeafOptions{CommonName: "client"})
	foreign := testcerts.NewCA(t, "other").Issue(t, testcerts.LeafOptions{CommonName: "intruder"})
	for _, tc := range []struct {
		need                 string
		verify               bool
		none, good, intruder bool // served: no certificate, ours, a foreign one
	}{
		{config.TLSClientAuthNone, true, true, true, true},
		{config.TLSClientAuthOptional, true, true, true, false},
		{config.TLSClientAuthOptional, false, true, true, true},
		{config.TLSClientAuthRequire, true, false, true, false},
		{config.TLSClientAuthRequire, false, false, true, true},
	} {
		t.Run(tc.need, func(t *testing.T) {
			c := p.serverTLS(config.TLSModeEnforcing)
			c.ServerNeedClientAuth, c.ServerAuthClient, c.ServerTrustCertPath = tc.need, tc.verify, p.files.CA
			addr := startEcho(t, newManager(t, c))
			requireServed(t, tc.none, echo(t, addr, trusting(p.ca)), "no client certificate")
			requireServed(t, tc.good, echo(t, addr, withCert(t, p.ca, mine)), "our client certificate")
			requireServed(t, tc.intruder, echo(t, addr, withCert(t, p.ca, foreign)), "a foreign client certificate")
		})
	}
}

// withCert presents leaf whatever CAs the server names (a Go client would
// otherwise withhold a certificate the server cannot verify).
func withCert(t *testing.T, ca *testcerts.CA, leaf *testcerts.Leaf) *tls.Config {
	c := trusting(ca)
	cert := leaf.TLS(t)
	c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
	return c
}

// TestMutualTLSWithClientSettings: the tls.client.* side of a Manager
// (what 905/1008 notifications and mqadmin use) presents its certificate
// and verifies the server's chain when tls.client.authServer is set.
func TestMutualTLSWithClientSettings(t *testing.T) {
	p := newPKI(t)
	c := p.serverTLS(config.TLSModeEnforcing)
	c.ServerNeedClientAuth, c.ServerAuthClient, c.ServerTrustCertPath = config.TLSClientAuthRequire, true, p.files.CA
	addr := startEcho(t, newManager(t, c))

	client := p.ca.Issue(t, testcerts.LeafOptions{CommonName: "client"}).WriteFiles(t, t.TempDir(), "client", p.ca)
	cc := config.DefaultTLS()
	cc.Enable, cc.ClientAuthServer, cc.ClientTrustCertPath = true, true, client.CA
	require.Error(t, echo(t, addr, newManager(t, cc).Client()), "no client certificate")
	cc.ClientCertPath, cc.ClientKeyPath = client.Cert, client.Key
	require.NoError(t, echo(t, addr, newManager(t, cc).Client()))
	cc.ClientTrustCertPath = testcerts.NewCA(t, "other").Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "x", p.ca).Cert
	require.Error(t, echo(t, addr, newManager(t, cc).Client()), "server chain not trusted")

	cc.Enable = false
	require.Nil(t, newManager(t, cc).Client(), "tls.enable=false dials plaintext")
}

// TestExpiredServerCertificate: a verifying client refuses an expired
// server certificate; Java's default client (authServer=false) does not
// look.
func TestExpiredServerCertificate(t *testing.T) {
	ca := testcerts.NewCA(t, "ca")
	expired := ca.Issue(t, testcerts.LeafOptions{NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-time.Hour)})
	files := expired.WriteFiles(t, t.TempDir(), "server", ca)
	c := config.DefaultTLS()
	c.ServerMode, c.ServerCertPath, c.ServerKeyPath = config.TLSModeEnforcing, files.Cert, files.Key
	addr := startEcho(t, newManager(t, c))
	require.Error(t, echo(t, addr, trusting(ca)))

	cc := config.DefaultTLS()
	cc.Enable, cc.ClientAuthServer, cc.ClientTrustCertPath = true, true, files.CA
	err := echo(t, addr, newManager(t, cc).Client())
	require.ErrorContains(t, err, "expired")
	cc.ClientAuthServer = false
	require.NoError(t, echo(t, addr, newManager(t, cc).Client()))
}

// TestAttackClientCertificatesRefused: with need.client.auth=require and
// authClient=true, a client certificate of our CA that has expired, is
// not yet valid, or is for servers only (no clientAuth extended key
// usage) is refused like one of another CA; a good one is served.
func TestAttackClientCertificatesRefused(t *testing.T) {
	p := newPKI(t)
	c := p.serverTLS(config.TLSModeEnforcing)
	c.ServerNeedClientAuth, c.ServerAuthClient, c.ServerTrustCertPath = config.TLSClientAuthRequire, true, p.files.CA
	addr := startEcho(t, newManager(t, c))
	now := time.Now()
	for name, opts := range map[string]testcerts.LeafOptions{
		"expired":     {NotBefore: now.Add(-48 * time.Hour), NotAfter: now.Add(-time.Hour)},
		"not yet":     {NotBefore: now.Add(time.Hour), NotAfter: now.Add(48 * time.Hour)},
		"server only": {ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}},
	} {
		require.Error(t, echo(t, addr, withCert(t, p.ca, p.ca.Issue(t, opts))), name)
	}
	require.NoError(t, echo(t, addr, withCert(t, p.ca, p.ca.Issue(t, testcerts.LeafOptions{}))))
}

// TestRequireWithoutAuthClientWarns: need.client.auth=require with
// authClient=false accepts any client certificate, a self-signed one
// included (Java's InsecureTrustManagerFactory), and authClient=true
// without tls.server.trustCertPath any certificate of a public CA (the
// system roots, Java's default trust); as neither is likely what an
// operator setting require means, startup says so at WARN.
func TestRequireWithoutAuthClientWarns(t *testing.T) {
	p := newPKI(t)
	const anyCert, publicCA = "tls.server.authClient=false accepts any client certificate", "verified against the system roots"
	for _, tc := range []struct {
		need   string
		verify bool
		trust  string
		warn   string
	}{
		{config.TLSClientAuthRequire, false, p.files.CA, anyCert},
		{config.TLSClientAuthOptional, false, "", anyCert},
		{config.TLSClientAuthRequire, true, "", publicCA},
		{config.TLSClientAuthRequire, true, p.files.CA, ""},
		{config.TLSClientAuthNone, false, "", ""},
	} {
		c := p.serverTLS(config.TLSModeEnforcing)
		c.ServerNeedClientAuth, c.ServerAuthClient, c.ServerTrustCertPath = tc.need, tc.verify, tc.trust
		logger, lines := testlog.Capture(t, "tlsconf", hclog.Info)
		m, err := New(c, logger, WithReloadInterval(0))
		require.NoError(t, err)
		m.Close()
		for _, w := range []string{anyCert, publicCA} {
			require.Equal(t, w == tc.warn, lines.Has(w),
				"%s authClient=%v trust=%q: %s", tc.need, tc.verify, tc.trust, lines.String())
		}
	}
}

// TestAttackTestModeHonoursRequire: a test-mode server (generated
// certificate) with need.client.auth=require refuses a client without a
// certificate, as any server with require does (Java's test mode asks
// for one but lets every client in); the certificate is then checked as
// tls.server.authClient says.
func TestAttackTestModeHonoursRequire(t *testing.T) {
	p := newPKI(t)
	c := config.DefaultTLS()
	c.TestModeEnable, c.ServerMode, c.ServerNeedClientAuth = true, config.TLSModeEnforcing, config.TLSClientAuthRequire
	insecure := func() *tls.Config { return &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12} } //nolint:gosec // test mode
	addr := startEcho(t, newManager(t, c))
	require.Error(t, echo(t, addr, insecure()), "no client certificate")
	mine := p.ca.Issue(t, testcerts.LeafOptions{CommonName: "client"})
	withMine := insecure()
	cert := mine.TLS(t)
	withMine.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
	require.NoError(t, echo(t, addr, withMine), "any certificate (authClient=false)")

	c.ServerAuthClient, c.ServerTrustCertPath = true, p.files.CA
	addr = startEcho(t, newManager(t, c))
	require.Error(t, echo(t, addr, insecure()), "no client certificate")
	require.NoError(t, echo(t, addr, withMine), "a certificate of tls.server.trustCertPath")
}
