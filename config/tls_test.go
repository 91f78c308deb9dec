package config

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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

// TestTLSConfigFileBounded: a tls.config.file that is huge, a FIFO
// or a device is refused promptly, naming the key and file, without being
// read into memory (nor an open that waits for a writer).
func TestTLSConfigFileBounded(t *testing.T) {
	huge := filepath.Join(t.TempDir(), "tls.properties")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(64<<20)) // sparse
	require.NoError(t, f.Close())
	fifo := filepath.Join(t.TempDir(), "fifo.properties")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	t.Cleanup(func() {
		if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = syscall.Close(fd)
		}
	})
	for path, want := range map[string]string{huge: "larger than", fifo: "not a regular file", "/dev/zero": "not a regular file"} {
		done := make(chan error, 1)
		go func() {
			_, err := LoadTLS(map[string]string{TLSConfigFileKey: path}, nil)
			done <- err
		}()
		select {
		case err := <-done:
			require.ErrorIs(t, err, ErrLoad, path)
			require.ErrorContains(t, err, TLSConfigFileKey)
			require.ErrorContains(t, err, path)
			require.ErrorContains(t, err, want)
		case <-time.After(5 * time.Second):
			t.Fatalf("LoadTLS(%s) still reading after 5s", path)
		}
	}
}

// TestTLSValidateRefusesSpecialFiles: Validate names a key whose
// path is a FIFO, device or directory instead of opening it (an open of
// a FIFO waits for a writer: startup would hang).
func TestTLSValidateRefusesSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.pem")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, path := range []string{fifo, "/dev/zero", t.TempDir()} {
		c := DefaultTLS()
		c.ServerCertPath, c.ServerKeyPath = path, path
		done := make(chan error, 1)
		go func() { done <- c.Validate() }()
		select {
		case err := <-done:
			require.ErrorContains(t, err, "tls.server.certPath ("+path+") cannot be read")
			require.ErrorContains(t, err, "not a regular file")
		case <-time.After(5 * time.Second):
			t.Fatalf("Validate(%s) still opening after 5s", path)
		}
	}
}

// TestAttackRemoteTLSUpdateVariants: no spelling of a tls.* key gets
// through UPDATE_NAMESRV_CONFIG or UPDATE_CONTROLLER_CONFIG (case, white
// space around key and separator, escapes that Java's Properties.load
// decodes), and a refused update leaves the -c file's password intact.
func TestAttackRemoteTLSUpdateVariants(t *testing.T) {
	c, err := Load(writeFile(t, "n.properties", "tls.server.keyPassword=secret\ntls.server.mode=enforcing\n"))
	require.NoError(t, err)
	for _, body := range []string{
		"TLS.SERVER.MODE=disabled\n", "  tls.server.mode = disabled\n", "\ttls.server.mode:disabled\n",
		"tls.server.mode disabled\n", `\u0074ls.server.mode=disabled` + "\n", `tls\.server\.mode=disabled` + "\n",
		"tls.server.keyPassword=******\n", "Tls.Enable=false\n", "tls.config.file=/tmp/x\n",
		"listenPort2=1\ntls.server.mode=disabled\n",
	} {
		_, err := c.ApplyUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, "%q", body)
		_, err = c.ApplyControllerUpdate([]byte(body))
		require.ErrorIs(t, err, ErrBlackListed, "controller: %q", body)
	}
	require.Equal(t, "secret", c.RawProperties()["tls.server.keyPassword"])
	require.Equal(t, "enforcing", c.RawProperties()["tls.server.mode"])
}
