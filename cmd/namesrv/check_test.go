package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeProps(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "namesrv.properties")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	return path
}

// -p runs the server's checks: a file the server would refuse prints
// every broken rule and exits 1, not the defaults and 0.
func TestPrintRefusesWhatServerRefuses(t *testing.T) {
	props := writeProps(t, "listenPort=abc", "metricsExporterType=LOG", "kvConfigPath="+filepath.Join(t.TempDir(), "kv.json"))
	code, out, errOut := runMain("-c", props, "-p")
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Contains(t, errOut, props+": the server would refuse this configuration:")
	require.Contains(t, errOut, "listenPort (abc) is not a valid int")
	require.Contains(t, errOut, "metricsExporterType (LOG) is a Java exporter this server does not implement")
}

// -check validates without opening a port: 0 and "valid" for a good file
// (with a warning per unknown key), 1 and the errors for a bad one
// (a TLS file that does not exist, an unwritable kvConfigPath).
func TestCheckModeValidatesWithoutListening(t *testing.T) {
	dir := t.TempDir()
	good := writeProps(t, "listenPort=1", "listenPrt=19877", "kvConfigPath="+filepath.Join(dir, "a", "b", "kv.json"))
	code, out, errOut := runMain("-c", good, "-check")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "namesrv: "+good+": configuration is valid\n", out)
	require.Contains(t, errOut, "namesrv: warning: unknown key listenPrt is ignored (nearest known key: listenPort)")
	require.NoDirExists(t, filepath.Join(dir, "a"), "the check makes no directory")

	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	bad := writeProps(t, "kvConfigPath="+filepath.Join(file, "kv.json"), "tls.server.mode=enforcing",
		"tls.server.certPath=/nonexistent/cert.pem", "tls.server.keyPath=/nonexistent/key.pem")
	code, out, errOut = runMain("-c", bad, "-check")
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Contains(t, errOut, "kvConfigPath ("+filepath.Join(file, "kv.json")+") cannot be created")
	require.Contains(t, errOut, "/nonexistent/cert.pem")
}

// A kvConfigPath the server cannot create fails the start with an error
// naming the key.
func TestUncreatableKVConfigPathNamesKey(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	kv := filepath.Join(file, "kv.json")
	props := writeProps(t, "bindAddress=127.0.0.1", "listenPort=0", "kvConfigPath="+kv)
	code, _, errOut := runMain("-c", props)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "kvConfigPath ("+kv+"):")
	require.NotContains(t, errOut, "another process")
}

// NAMESRV_LOG_LEVEL and NAMESRV_LOG_FORMAT that are none of their choices
// stop the start with an error naming the variable.
func TestBadLogSettingNamesVariable(t *testing.T) {
	props := writeProps(t, "bindAddress=127.0.0.1", "listenPort=0", "kvConfigPath="+filepath.Join(t.TempDir(), "kv.json"))
	t.Setenv("NAMESRV_LOG_LEVEL", "verbose")
	code, _, errOut := runMain("-c", props)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "NAMESRV_LOG_LEVEL (verbose) is not a log level")
}
