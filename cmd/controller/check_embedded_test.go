//go:build embedded_controller

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// -p and -check run the controller's checks: a refused file prints every
// broken rule and exits 1; a valid one prints its config (-p) or says it
// is valid (-check), with a warning per unknown key, opening no port.
func TestCheckModeAndPrintValidate(t *testing.T) {
	cfg := loadTestConfig(t, "127.0.0.1:1", "127.0.0.1:2", "electMasterMaxRetryCont=3")
	path := cfg.ConfigStorePath
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run([]string{"-c", path, "-check"}, &out, &errOut), errOut.String())
	require.Equal(t, "controller: "+path+": configuration is valid\n", out.String())
	require.Contains(t, errOut.String(), "controller: warning: unknown key electMasterMaxRetryCont is ignored (nearest known key: electMasterMaxRetryCount)")

	bad := filepath.Join(t.TempDir(), "bad.properties")
	require.NoError(t, os.WriteFile(bad, []byte("controllerDLegerSelfId=n9\nlistenPort=abc\n"), 0o600))
	for _, flag := range []string{"-p", "-check"} {
		out.Reset()
		errOut.Reset()
		require.Equal(t, 1, run([]string{"-c", bad, flag}, &out, &errOut))
		require.Empty(t, out.String())
		require.Contains(t, errOut.String(), "the controller would refuse this configuration")
		require.Contains(t, errOut.String(), "listenPort (abc) is not a valid int")
	}
}
