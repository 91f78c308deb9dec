package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

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
