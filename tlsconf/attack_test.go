package tlsconf

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testcerts"
)

// TestAttackTestModeDoesNotDisableServerVerification: an operator who
// names a trust file and sets tls.client.authServer=true gets the server's
// chain verified even with tls.test.mode.enable=true (Java's default, so
// often left in a copied tls.properties), and the configured client
// certificate is presented. Test mode only supplies a server certificate
// when none is configured; it never silently turns verification off.
func TestAttackTestModeDoesNotDisableServerVerification(t *testing.T) {
	p := newPKI(t)
	srv := p.serverTLS(config.TLSModeEnforcing)
	srv.ServerNeedClientAuth, srv.ServerAuthClient, srv.ServerTrustCertPath = config.TLSClientAuthRequire, true, p.files.CA
	addr := startEcho(t, newManager(t, srv))

	client := p.ca.Issue(t, testcerts.LeafOptions{CommonName: "client"}).WriteFiles(t, t.TempDir(), "client", p.ca)
	cc := config.DefaultTLS()
	cc.Enable, cc.TestModeEnable, cc.ClientAuthServer = true, true, true
	cc.ClientCertPath, cc.ClientKeyPath, cc.ClientTrustCertPath = client.Cert, client.Key, client.CA
	t.Run("client certificate presented", func(t *testing.T) {
		require.NoError(t, echo(t, addr, newManager(t, cc).Client()))
	})
	t.Run("untrusted server refused", func(t *testing.T) {
		otherCA := testcerts.NewCA(t, "other")
		c := cc.Clone()
		c.ClientTrustCertPath = otherCA.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "x", otherCA).CA
		open := startEcho(t, newManager(t, p.serverTLS(config.TLSModeEnforcing))) // asks for no client certificate
		require.Error(t, echo(t, open, newManager(t, c).Client()), "a server outside tls.client.trustCertPath")
	})
}
