package integration

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
)

// The binary is built once per test run, on first use.
var (
	buildOnce sync.Once
	buildDir  string
	buildBin  string
	buildErr  error
)

// namesrvBinary returns the path of cmd/namesrv built with this test
// binary's controller tag, skipping the test when go is not on PATH.
func namesrvBinary(t testing.TB) string {
	t.Helper()
	goTool := goOnPath(t)
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "namesrv-it-")
		if buildErr != nil {
			return
		}
		buildBin = filepath.Join(buildDir, "namesrv")
		args := append([]string{"build"}, buildTagArgs...)
		args = append(args, "-o", buildBin, "github.com/rmqgo/nameserver/cmd/namesrv")
		out, err := exec.Command(goTool, args...).CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
		}
	})
	require.NoError(t, buildErr)
	return buildBin
}

// goOnPath returns the go tool, skipping the test when there is none.
func goOnPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	return p
}

func cleanupBinary() {
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
}

// handedOut holds every port freePort returned: the kernel hands a port
// just closed out again, so one test could be given the same port twice.
var handedOut sync.Map

// freePort returns a loopback port that was free a moment ago and that it
// never returned before in this test binary.
func freePort(t testing.TB) int {
	t.Helper()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		port := ln.Addr().(*net.TCPAddr).Port
		require.NoError(t, ln.Close())
		if _, dup := handedOut.LoadOrStore(port, true); !dup {
			return port
		}
	}
}

// writeProps writes a .properties file with sorted keys.
func writeProps(t testing.TB, path string, props map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&sb, "%s=%s\n", k, props[k])
	}
	require.NoError(t, os.WriteFile(path, []byte(sb.String()), 0o600))
}

// nsProcess is a cmd/namesrv process started with -c on a loopback port.
type nsProcess struct {
	t       testing.TB
	bin     string
	cfgPath string
	addr    string
	cmd     *exec.Cmd
	args    []string      // after -c FILE (e.g. -Dtls.server.mode=enforcing)
	done    chan struct{} // closed when cmd.Wait returned
	waitErr error
}

// startBinary writes a config (bindAddress 127.0.0.1, a free listenPort,
// state in a temp dir, plus extra) and starts the binary with -c, waiting
// until it accepts connections; args follow -c FILE. The process is killed
// at cleanup.
func startBinary(t testing.TB, extra map[string]string, args ...string) *nsProcess {
	t.Helper()
	dir := t.TempDir()
	props := map[string]string{
		"bindAddress":     "127.0.0.1",
		"listenPort":      strconv.Itoa(freePort(t)),
		"kvConfigPath":    filepath.Join(dir, "kvConfig.json"),
		"configStorePath": filepath.Join(dir, "namesrv.properties"),
	}
	for k, v := range extra {
		props[k] = v
	}
	p := &nsProcess{
		t: t, bin: namesrvBinary(t), cfgPath: filepath.Join(dir, "namesrv.properties"),
		addr: "127.0.0.1:" + props["listenPort"], args: args,
	}
	writeProps(t, p.cfgPath, props)
	t.Cleanup(p.kill)
	p.start()
	return p
}

// start launches the process and waits until its port accepts.
func (p *nsProcess) start() {
	p.t.Helper()
	p.cmd = exec.Command(p.bin, append([]string{"-c", p.cfgPath}, p.args...)...)
	p.cmd.Stdout = tWriter{p.t}
	p.cmd.Stderr = tWriter{p.t}
	require.NoError(p.t, p.cmd.Start())
	p.done = make(chan struct{})
	go func() { p.waitErr = p.cmd.Wait(); close(p.done) }()
	poll.Until(p.t, "namesrv to listen on "+p.addr, waitTimeout, 10*time.Millisecond, func() error {
		select {
		case <-p.done:
			return errors.Join(errors.New("namesrv exited early"), p.waitErr)
		default:
		}
		c, err := net.DialTimeout("tcp", p.addr, time.Second)
		if err == nil {
			_ = c.Close()
		}
		return err
	})
}

// restart starts the process again with the same config and port.
func (p *nsProcess) restart() { p.start() }

// kill sends SIGKILL and reaps the process (no-op if it already exited).
func (p *nsProcess) kill() {
	if p.cmd == nil || p.done == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// signal sends sig and returns the exit code once the process ended
// (failing after waitTimeout).
func (p *nsProcess) signal(sig syscall.Signal) int {
	p.t.Helper()
	require.NoError(p.t, p.cmd.Process.Signal(sig))
	select {
	case <-p.done:
	case <-time.After(waitTimeout):
		p.t.Fatalf("namesrv did not exit %v after %v", waitTimeout, sig)
	}
	return p.cmd.ProcessState.ExitCode()
}

// runBinary runs the binary with args to completion (bounded by
// waitTimeout) and returns its exit code, stdout and stderr.
func runBinary(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, namesrvBinary(t), args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		require.NoError(t, err)
	}
	require.NoError(t, ctx.Err(), "namesrv %v did not exit", args)
	t.Logf("namesrv %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, cmd.ProcessState.ExitCode(), out.String(), errOut.String())
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}
