package config

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLoadTLSLayersAndDefaults(t *testing.T) {
	file := writeFile(t, "tls.properties", "tls.server.mode=enforcing\ntls.test.mode.enable=true\ntls.server.need.client.auth=optional\n")
	tc, err := LoadTLS(map[string]string{TLSConfigFileKey: file, "tls.server.mode": "disabled", "listenPort": "1"},
		map[string]string{"tls.server.need.client.auth": "REQUIRE"})
	require.NoError(t, err)
	require.Equal(t, TLSModeEnforcing, tc.Mode(), "tls.config.file wins over the -c file")
	require.Equal(t, TLSClientAuthRequire, tc.ClientAuth(), "-D wins over tls.config.file")
	require.True(t, tc.TestModeEnable)
	require.NoError(t, tc.Validate())

	def, err := LoadTLS(nil, nil)
	require.NoError(t, err, "a missing default tls.config.file is fine")
	require.Equal(t, TLSModePermissive, def.Mode())
	require.False(t, def.TestModeEnable)
}

func TestLoadTLSMissingNamedFileFails(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.properties")
	_, err := LoadTLS(nil, map[string]string{TLSConfigFileKey: missing})
	require.ErrorIs(t, err, ErrLoad)
	requireKeysNamed(t, err, TLSConfigFileKey, missing)
}

func TestTLSValidateNamesEveryKey(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.pem")
	tc, err := LoadTLS(map[string]string{
		"tls.server.mode": "strict", "tls.server.need.client.auth": "always", "tls.enable": "yes",
		"tls.client.certPath": missing, "tls.server.trustCertPath": missing,
	}, nil)
	require.NoError(t, err)
	err = tc.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	requireKeysNamed(t, err, "tls.server.mode (strict)", "tls.server.need.client.auth (always)", "tls.enable (yes)",
		"tls.client.keyPath must be set", "tls.client.certPath ("+missing, "tls.server.trustCertPath ("+missing)
	require.Equal(t, 6, countLines(err), err.Error())

	enf, err := LoadTLS(map[string]string{"tls.server.mode": "enforcing"}, nil)
	require.NoError(t, err)
	requireKeysNamed(t, enf.Validate(), "tls.server.mode (enforcing) needs tls.server.certPath")
}

func TestSplitJavaProps(t *testing.T) {
	rest, props, err := SplitJavaProps([]string{"-c", "f", "-Dtls.server.mode=enforcing", "-Dtls.enable", "-p", "--", "-Dx=y"})
	require.NoError(t, err)
	require.Equal(t, []string{"-c", "f", "-p", "--", "-Dx=y"}, rest)
	require.Equal(t, map[string]string{"tls.server.mode": "enforcing", "tls.enable": ""}, props)
	_, _, err = SplitJavaProps([]string{"-D=x"})
	require.ErrorIs(t, err, ErrInvalid)
}

func TestTLSKeysNeverUpdatedRemotelyNorShown(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", "tls.server.keyPassword=secret\ntls.server.mode=permissive\n"))
	require.NoError(t, err)
	for _, k := range []string{"tls.server.mode", "tls.server.keyPassword", "tls.test.mode.enable", "tls.enable", "TLS.Server.Mode"} {
		require.True(t, c.IsBlackListed(k), k)
	}
	_, err = c.ApplyUpdate([]byte("tls.server.mode=disabled\n"))
	require.ErrorIs(t, err, ErrBlackListed)
	out := mustParse(t, c.Render())
	require.Equal(t, "******", out["tls.server.keyPassword"], "GET_NAMESRV_CONFIG masks passwords")
	require.NoError(t, c.Persist())
	back, err := Load(c.ConfigStorePath)
	require.NoError(t, err)
	require.Equal(t, "secret", back.RawProperties()["tls.server.keyPassword"], "persisting keeps the password")
}

func TestJavaPropsMergesJavaOpt(t *testing.T) {
	rest, props, err := JavaProps([]string{"-c", "f", "-Dtls.server.mode=enforcing"},
		"-server -Xmx1g -Dtls.enable=true -Dtls.server.mode=disabled -D")
	require.NoError(t, err)
	require.Equal(t, []string{"-c", "f"}, rest)
	require.Equal(t, map[string]string{"tls.enable": "true", "tls.server.mode": "enforcing"}, props)
}
