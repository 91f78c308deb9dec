package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Bounds of child start and stop.
const (
	readyTimeout = 15 * time.Second
	stopTimeout  = 10 * time.Second
	startTries   = 3
)

// child is a server process started by loadgen.
type child struct {
	name   string
	cmd    *exec.Cmd
	addr   string
	logF   *os.File
	exited chan struct{}
	err    error // exit status, valid after exited is closed

	metricsAddr string // a NameServer's /metrics listener, "" when off
}

// startProcess starts bin with args; its output goes to logPath. Pdeathsig
// makes sure the child dies with loadgen.
func startProcess(name, bin, logPath string, args ...string) (*child, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, logF: f, exited: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// pid returns the process id of the child.
func (c *child) pid() int { return c.cmd.Process.Pid }

// stop sends SIGTERM, waits up to stopTimeout, then kills.
func (c *child) stop() {
	defer c.logF.Close()
	select {
	case <-c.exited:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(stopTimeout):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// alive returns an error if the child has exited.
func (c *child) alive() error {
	select {
	case <-c.exited:
		return fmt.Errorf("%s exited: %v (log %s)", c.name, c.err, c.logF.Name())
	default:
		return nil
	}
}

// waitDialable polls addr until a TCP connection succeeds.
func (c *child) waitDialable() error {
	deadline := time.Now().Add(readyTimeout)
	for time.Now().Before(deadline) {
		if err := c.alive(); err != nil {
			return err
		}
		nc, err := net.DialTimeout("tcp", c.addr, time.Second)
		if err == nil {
			return nc.Close()
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s not reachable at %s after %s", c.name, c.addr, readyTimeout)
}

// freePort asks the OS for a free loopback port.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// writeNamesrvConfig writes a properties file for a NameServer on port,
// with its state under dir; extra lines are added as they are.
func writeNamesrvConfig(dir string, port int, extra ...string) (string, error) {
	path := filepath.Join(dir, "namesrv-bench.properties")
	props := append([]string{
		"bindAddress=127.0.0.1",
		"listenPort=" + strconv.Itoa(port),
		"kvConfigPath=" + filepath.Join(dir, "kvConfig.json"),
		"configStorePath=" + filepath.Join(dir, "namesrv.properties"),
	}, extra...)
	return path, os.WriteFile(path, []byte(strings.Join(props, "\n")+"\n"), 0o600)
}

// startNamesrv starts the NameServer (bin, or with inproc this binary in
// -serve-namesrv mode writing cpuProfile) on a free port; with metrics it
// also serves /metrics (metricsExporterType=PROM) on another free port,
// kept in the child's metricsAddr.
func startNamesrv(bin, dir string, inproc bool, cpuProfile string, metrics bool, log hclog.Logger) (*child, error) {
	var metricsAddr string
	c, err := startOnFreePort("namesrv", bin, dir, log, func(port int) ([]string, error) {
		var extra []string
		if metrics {
			mport, err := freePort()
			if err != nil {
				return nil, err
			}
			metricsAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(mport))
			extra = []string{"metricsExporterType=PROM", "metricsPromExporterHost=127.0.0.1",
				"metricsPromExporterPort=" + strconv.Itoa(mport)}
		}
		cfgPath, err := writeNamesrvConfig(dir, port, extra...)
		if err != nil {
			return nil, err
		}
		if inproc {
			return []string{"-serve-namesrv", "-cpuprofile", cpuProfile, "-c", cfgPath}, nil
		}
		return []string{"-c", cfgPath}, nil
	})
	if c != nil {
		c.metricsAddr = metricsAddr
	}
	return c, err
}

// startLimit starts this binary (self) in -serve-limit mode answering with
// the body in bodyPath.
func startLimit(self, dir, bodyPath, cpuProfile string, log hclog.Logger) (*child, error) {
	return startOnFreePort("limit", self, dir, log, func(port int) ([]string, error) {
		return []string{"-serve-limit", "-limit-body", bodyPath, "-cpuprofile", cpuProfile,
			"-listen", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}, nil
	})
}

// startLean starts this binary (self) in -serve-lean mode answering with
// the body in bodyPath.
func startLean(self, dir, bodyPath, cpuProfile string, log hclog.Logger) (*child, error) {
	return startOnFreePort("lean", self, dir, log, func(port int) ([]string, error) {
		return []string{"-serve-lean", "-limit-body", bodyPath, "-cpuprofile", cpuProfile,
			"-listen", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}, nil
	})
}

// startOnFreePort starts a server child on a free loopback port, retrying
// when the port was taken meanwhile; argsFor gives its arguments.
func startOnFreePort(name, bin, dir string, log hclog.Logger, argsFor func(port int) ([]string, error)) (*child, error) {
	var lastErr error
	for try := 0; try < startTries; try++ {
		c, err := tryStart(name, bin, dir, try, argsFor)
		if err == nil {
			log.Debug("server ready", "name", name, "addr", c.addr, "pid", c.pid())
			return c, nil
		}
		lastErr = err
		log.Warn("server start failed", "name", name, "try", try, "error", err)
	}
	return nil, lastErr
}

func tryStart(name, bin, dir string, try int, argsFor func(port int) ([]string, error)) (*child, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args, err := argsFor(port)
	if err != nil {
		return nil, err
	}
	c, err := startProcess(name, bin, filepath.Join(dir, fmt.Sprintf("%s-%d.log", name, try)), args...)
	if err != nil {
		return nil, err
	}
	c.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if err := c.waitDialable(); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}
