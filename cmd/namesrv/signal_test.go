package main

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/internal/version"
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

// TestStartLogsBuildConfigAndUnknownKeys: the start logs the build (with
// its VCS revision), the config file, the state path, the settings that
// differ from the defaults and a warning naming an unknown key and the
// nearest known one.
func TestStartLogsBuildConfigAndUnknownKeys(t *testing.T) {
	kv := filepath.Join(t.TempDir(), "kv.json")
	props := writeProps(t, "bindAddress=127.0.0.1", "listenPort=0", "kvConfigPath="+kv, "listenPrt=19877")
	afterStart = func() { require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM)) }
	t.Cleanup(func() { afterStart = func() {} })
	code, _, log := runMain("-c", props)
	require.Equal(t, 0, code, log)
	require.Contains(t, log, "starting: version="+version.Version+" revision="+version.Revision())
	require.Contains(t, log, "config: file="+props+" kvConfigPath="+kv)
	require.Contains(t, log, "settings differing from the defaults: ")
	require.Contains(t, log, " bindAddress=127.0.0.1 configStorePath="+props)
	require.Contains(t, log, " listenPort=0 ")
	require.Contains(t, log, "property read by no setting, ignored: key=listenPrt nearest=listenPort")
}

// TestSIGHUPIsGraceful: SIGHUP (a closed terminal, a supervisor's
// hang-up) goes through the graceful shutdown and exit 0, not Go's
// default immediate exit 129.
func TestSIGHUPIsGraceful(t *testing.T) {
	props := writeProps(t, "bindAddress=127.0.0.1", "listenPort=0", "kvConfigPath="+filepath.Join(t.TempDir(), "kv.json"))
	afterStart = func() { require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP)) }
	t.Cleanup(func() { afterStart = func() {} })
	code, _, errOut := runMain("-c", props)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "shutting down: signal=hangup")
}

// TestSIGQUITDumpsAndKeepsServing: kill -3 logs every goroutine's stack
// and the server goes on answering (Go's default would exit 2).
func TestSIGQUITDumpsAndKeepsServing(t *testing.T) {
	props := writeProps(t, "bindAddress=127.0.0.1", "listenPort=0", "kvConfigPath="+filepath.Join(t.TempDir(), "kv.json"))
	var errOut testlog.Lines
	afterStart = func() {
		require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGQUIT))
		poll.Until(t, `strings.Contains(errOut.String(), "goroutine dump (SIGQUIT), still serving")`, 30*time.Second, 10*time.Millisecond, poll.True(func() bool { return strings.Contains(errOut.String(), "goroutine dump (SIGQUIT), still serving") }))
		addr := regexp.MustCompile(`name server started: addr=(\S+)`).FindStringSubmatch(errOut.String())
		require.Len(t, addr, 2)
		conn, err := net.Dial("tcp", addr[1])
		require.NoError(t, err, "still serving after the dump")
		require.NoError(t, conn.Close())
		require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	}
	t.Cleanup(func() { afterStart = func() {} })
	code := run([]string{"-c", props}, io.Discard, &errOut)
	log := errOut.String()
	require.Equal(t, 0, code, log)
	require.Contains(t, log, "goroutine ")
	require.Contains(t, log, "shutting down: signal=terminated")
}
