package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSIGTERMRightAfterStartIsGraceful: a SIGTERM that arrives once the
// servers are up but before run waits for signals (a test harness or an
// orchestrator that signals as soon as the port accepts, on a loaded
// machine) goes through the graceful shutdown and exit 0, not Go's default
// action for an unhandled SIGTERM, which ends the process at once.
func TestSIGTERMRightAfterStartIsGraceful(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "namesrv.properties")
	require.NoError(t, os.WriteFile(props, []byte("bindAddress=127.0.0.1\nlistenPort=0\nkvConfigPath="+
		filepath.Join(dir, "kvConfig.json")+"\n"), 0o600))
	afterStart = func() {
		require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
		time.Sleep(200 * time.Millisecond) // the signal is delivered before run goes on (not an assertion)
	}
	t.Cleanup(func() { afterStart = func() {} })
	code, _, errOut := runMain("-c", props)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "shutting down: signal=terminated")
}
