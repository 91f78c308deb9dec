package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProbeIgnoresServerTLSKeys: -probe is a client; tls.server.* keys
// naming files it cannot read (a server's, on the same host) must not
// stop it. A broken tls.client.* key still does.
func TestProbeIgnoresServerTLSKeys(t *testing.T) {
	dir := t.TempDir()
	props := map[string]string{"tls.enable": "true", "tls.server.mode": "enforcing",
		"tls.server.certPath": filepath.Join(dir, "absent.crt"), "tls.server.keyPath": filepath.Join(dir, "absent.key"),
		"tls.server.authClient": "maybe"}
	c, err := probeClientTLS(props)
	require.NoError(t, err)
	require.NotNil(t, c)
	props["tls.client.authServer"] = "maybe"
	_, err = probeClientTLS(props)
	require.ErrorContains(t, err, "tls.client.authServer")
}
