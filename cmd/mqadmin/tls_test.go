package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testcerts"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/tlsconf"
)

// startEnforcingNS starts a NameServer whose listener enforces TLS with a
// certificate of a fresh CA, and returns its address and the CA file.
func startEnforcingNS(t *testing.T) (addr, caFile string) {
	ca := testcerts.NewCA(t, "mqadmin-ca")
	files := ca.Issue(t, testcerts.LeafOptions{}).WriteFiles(t, t.TempDir(), "server", ca)
	tc := config.DefaultTLS()
	tc.ServerMode, tc.ServerCertPath, tc.ServerKeyPath = config.TLSModeEnforcing, files.Cert, files.Key
	m, err := tlsconf.New(tc, testlog.New(t, "tls"))
	require.NoError(t, err)
	t.Cleanup(m.Close)
	srv := namesrvtest.Start(t, namesrvtest.WithServerOptions(namesrv.WithTLS(m)))
	return srv.Addr().String(), files.CA
}

// TestTLSFlags: against an enforcing NameServer, plaintext fails; --tls,
// -Dtls.enable=true and JAVA_OPT=-Dtls.enable=true work (Java's default
// client trusts any server); with tls.client.authServer the chain is
// checked against tls.client.trustCertPath.
func TestTLSFlags(t *testing.T) {
	ns, caFile := startEnforcingNS(t)
	put := []string{"updateKvConfig", "-n", ns, "-s", "NS", "-k", "key", "-v", "value"}
	require.Equal(t, exitFail, mqadmin(t, put...).code, "plaintext is refused")
	requireOK(t, mqadmin(t, append(put, "--tls")...))
	requireOK(t, mqadmin(t, append(put, "-Dtls.enable=true")...))
	verify := []string{"-Dtls.enable=true", "-Dtls.client.authServer=true"}
	requireOK(t, mqadmin(t, append(put, append(verify, "-Dtls.client.trustCertPath="+caFile)...)...))
	_, otherCA := startEnforcingNS(t)
	r := mqadmin(t, append(put, append(verify, "-Dtls.client.trustCertPath="+otherCA)...)...)
	require.Equal(t, exitFail, r.code, r.errOut)

	t.Setenv(config.JavaOptEnv, "-Xmx1g -Dtls.enable=true")
	requireOK(t, mqadmin(t, put...))
}

// TestClientIgnoresServerTLSKeys: mqadmin is a client; the tls.server.*
// keys of a tls.config.file shared with a NameServer on the same host
// (its key readable by the server's user only, an encrypted key without
// the password, enforcing mode) must not stop it, as Java's tools build
// only the client side (TlsHelper.buildSslContext(true)).
func TestClientIgnoresServerTLSKeys(t *testing.T) {
	ns, _ := startEnforcingNS(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "tls.properties")
	body := "tls.enable=true\ntls.server.mode=enforcing\n" +
		"tls.server.certPath=" + filepath.Join(dir, "absent.crt") + "\n" +
		"tls.server.keyPath=" + filepath.Join(dir, "root-only.key") + "\n"
	require.NoError(t, os.WriteFile(file, []byte(body), 0o600))
	put := []string{"updateKvConfig", "-n", ns, "-s", "NS", "-k", "key", "-v", "value", "-Dtls.config.file=" + file}
	requireOK(t, mqadmin(t, put...))
}
