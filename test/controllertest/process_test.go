//go:build embedded_controller

package controllertest

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// The binaries are built once per test run, with the controller tag.
var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// binary returns the path of cmd/<name> built with -tags embedded_controller.
func binary(t testing.TB, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds binaries")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "controller-it-"); buildErr != nil {
			return
		}
		out, err := exec.Command(goTool, "build", "-tags", "embedded_controller", "-o", buildDir+"/",
			"github.com/rmqgo/nameserver/cmd/namesrv", "github.com/rmqgo/nameserver/cmd/controller",
			"github.com/rmqgo/nameserver/cmd/mqadmin").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return filepath.Join(buildDir, name)
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{buildDir, oldBuildDir} {
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// handedOut holds every address freeAddr returned: the kernel hands a
// port just closed out again, so without it one test's processes were
// given the same port twice.
var handedOut sync.Map

// freeAddr returns a loopback address that was free a moment ago and that
// it never returned before in this test binary.
func freeAddr(t testing.TB) string {
	t.Helper()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		if _, dup := handedOut.LoadOrStore(addr, true); !dup {
			return addr
		}
	}
}

// process is one running binary; its output goes to the test log.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

func startProcess(t testing.TB, name, bin string, args ...string) *process {
	t.Helper()
	w := &logWriter{t: t, prefix: name}
	t.Cleanup(w.stop)
	return startProcessTo(t, name, w, bin, args...)
}

// startProcessTo is startProcess with the output going to w.
func startProcessTo(t testing.TB, name string, w io.Writer, bin string, args ...string) *process {
	t.Helper()
	p := &process{name: name, cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = w, w
	require.NoError(t, p.cmd.Start())
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.signal(syscall.SIGKILL) })
	return p
}

// signal sends sig and returns the exit code once the process ended.
func (p *process) signal(sig syscall.Signal) int {
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	default:
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(waitLimit):
		_ = p.cmd.Process.Kill()
		<-p.done
		return -1
	}
}

// logWriter forwards process output to t.Log until the test ends.
type logWriter struct {
	mu     sync.Mutex
	t      testing.TB
	prefix string
	ended  bool
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.ended {
		w.t.Log(w.prefix + ": " + strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func (w *logWriter) stop() {
	w.mu.Lock()
	w.ended = true
	w.mu.Unlock()
}

// embeddedCluster is three cmd/namesrv processes with
// enableControllerInNamesrv on loopback.
type embeddedCluster struct {
	addrs   []string            // controller (broker-facing) addresses, n0..n2
	procs   map[string]*process // by controller address
	started time.Time           // when the last process was started
}

// startEmbeddedCluster starts the three processes (props add to every
// node's fastProps) and waits until each answers 1005. When one exits
// first (a port freeAddr handed out was taken meanwhile by another
// program on the machine), all three are started again on new ports, at
// most embeddedStartAttempts times.
func startEmbeddedCluster(t *testing.T, props ...string) *embeddedCluster {
	t.Helper()
	for attempt := 1; ; attempt++ {
		ec := launchEmbeddedCluster(t, props...)
		err := ec.awaitServing()
		if err == nil {
			return ec
		}
		for _, p := range ec.procs {
			p.signal(syscall.SIGKILL)
		}
		require.Less(t, attempt, embeddedStartAttempts, "the embedded cluster did not start: %v", err)
		t.Logf("starting the embedded cluster again on new ports: %v", err)
	}
}

const embeddedStartAttempts = 3

func launchEmbeddedCluster(t *testing.T, props ...string) *embeddedCluster {
	t.Helper()
	bin := binary(t, "namesrv")
	ids := []string{"n0", "n1", "n2"}
	var peers, raftPeers []string
	ec := &embeddedCluster{procs: map[string]*process{}}
	for _, id := range ids {
		addr := freeAddr(t)
		ec.addrs = append(ec.addrs, addr)
		peers = append(peers, id+"-"+addr)
		raftPeers = append(raftPeers, id+"-"+freeAddr(t))
	}
	dir := t.TempDir()
	for i, id := range ids {
		_, port, _ := net.SplitHostPort(freeAddr(t))
		path := writeProps(t, filepath.Join(dir, id), id, strings.Join(peers, ";"), strings.Join(raftPeers, ";"),
			append([]string{"enableControllerInNamesrv=true", "bindAddress=127.0.0.1", "listenPort=" + port,
				"kvConfigPath=" + filepath.Join(dir, id, "kvConfig.json")}, append(slices.Clone(fastProps), props...)...))
		ec.procs[ec.addrs[i]] = startProcess(t, id, bin, "-c", path)
	}
	ec.started = time.Now()
	return ec
}

// awaitServing polls 1005 on every node until each answers (at most
// waitLimit); it fails at once when a process has exited.
func (ec *embeddedCluster) awaitServing() error {
	deadline := time.Now().Add(waitLimit)
	for _, addr := range ec.addrs {
		for !answersMetadata(addr) {
			select {
			case <-ec.procs[addr].done:
				return fmt.Errorf("%s (%s) exited at start", ec.procs[addr].name, addr)
			default:
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s (%s) did not answer 1005 within %v", ec.procs[addr].name, addr, waitLimit)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

// answersMetadata reports whether addr answers one 1005.
func answersMetadata(addr string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
	if err != nil {
		return false
	}
	defer c.Close()
	_, err = c.Invoke(ctx, remoting.NewRequest(remoting.ControllerGetMetadataInfo, nil, nil))
	return err == nil
}

// TestProcessClusterEmbeddedInNamesrv runs three cmd/namesrv processes
// with enableControllerInNamesrv, drives a broker pair through them, kills
// the controller leader's process with SIGKILL and stops the rest with
// SIGTERM (exit 0).
func TestProcessClusterEmbeddedInNamesrv(t *testing.T) {
	ec := startEmbeddedCluster(t)
	ctlAddrs, procs := ec.addrs, ec.procs
	p := newPair(t, ctlAddrs, 3*time.Second)
	before := readState(t, p.slave)

	leader := p.slave.findLeader()
	require.NotEmpty(t, leader)
	start := time.Now()
	require.Equal(t, int(-1), procs[leader].signal(syscall.SIGKILL))
	resp := p.slave.replicaInfo()
	elapsed := time.Since(start)
	require.Equal(t, remoting.Success, resp.Code)
	// Speed is measured by the benchmarks (BENCHMARKS.md); here it is only logged.
	t.Logf("controller leader process SIGKILL to a new leader answering 1004: %v (target %v)", elapsed, targetNewLeaderServes)
	requireState(t, p.slave, before)

	for addr, proc := range procs {
		if addr != leader {
			require.Equal(t, 0, proc.signal(syscall.SIGTERM), "graceful stop of %s", proc.name)
		}
	}
}

// TestStandaloneControllerBinary: -p, a bad config, -probe and a
// single-node standalone controller stopped by SIGTERM.
func TestStandaloneControllerBinary(t *testing.T) {
	bin := binary(t, "controller")
	addr, raftAddr := freeAddr(t), freeAddr(t)
	path := writeProps(t, t.TempDir(), "n0", "n0-"+addr, "n0-"+raftAddr, []string{"bindAddress=127.0.0.1"})

	out, err := exec.Command(bin, "-c", path, "-p").Output()
	require.NoError(t, err)
	require.Contains(t, string(out), "controllerDLegerSelfId=n0\n")

	bad := writeProps(t, t.TempDir(), "n9", "n0-"+addr, "n0-"+raftAddr, nil)
	msg, err := exec.Command(bin, "-c", bad).CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(msg), "controllerDLegerSelfId (n9) is not an id of controllerDLegerPeers")

	proc := startProcess(t, "n0", bin, "-c", path)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	probe, err := exec.CommandContext(ctx, bin, "-probe", addr, "-wait", "10s").Output()
	require.NoError(t, err, string(probe))
	require.Contains(t, string(probe), "controller leader "+addr+" is ready")
	require.Equal(t, 0, proc.signal(syscall.SIGTERM))
}
