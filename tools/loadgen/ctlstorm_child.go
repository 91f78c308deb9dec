//go:build embedded_controller

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
)

// fleetReady is the line a -serve-fleet child prints once every broker beats.
const fleetReady = "fleet ready"

// serveFleet is the -serve-fleet child: co.hbBrokers brokers in sets of
// co.brokers, set up against -ctl-addrs and beating until SIGTERM.
func serveFleet(co ctlOptions, stdout io.Writer, log hclog.Logger) error {
	co.sets = (co.hbBrokers + co.brokers - 1) / co.brokers
	sets, err := newFleet(strings.Split(co.ctlAddrs, ","), "hb-set", co, log.Named("fleet"))
	if err != nil {
		return err
	}
	defer closeFleet(sets)
	fmt.Fprintln(stdout, fleetReady)
	waitTerm()
	return nil
}

// fleetChild is a running -serve-fleet child.
type fleetChild struct {
	cmd  *exec.Cmd
	done chan error
	logF *os.File // the child's stderr, fleet.log
}

// startFleetChild re-executes this binary as a -serve-fleet child against
// g and waits until its fleet beats.
func startFleetChild(g *ctlGroup, co ctlOptions, log hclog.Logger) (*fleetChild, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-workload", "ctlstorm", "-serve-fleet", "-ctl-addrs", strings.Join(g.addrs(), ","),
		"-hb-brokers", strconv.Itoa(co.hbBrokers), "-brokers", strconv.Itoa(co.brokers),
		"-hb-interval", co.hbInterval.String(), "-hb-timeout", co.hbTimeout.String())
	logF, err := os.Create(filepath.Join(g.dir, "fleet.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logF
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		_ = logF.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		_ = logF.Close()
		return nil, err
	}
	c := &fleetChild{cmd: cmd, done: make(chan error, 1), logF: logF}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := sc.Scan() && sc.Text() == fleetReady
		ready <- ok
		_, _ = io.Copy(io.Discard, out)
		c.done <- cmd.Wait()
	}()
	log.Info("ctlstorm: heartbeat fleet child setting up", "brokers", co.hbBrokers, "pid", cmd.Process.Pid)
	select {
	case ok := <-ready:
		if ok {
			return c, nil
		}
	case <-time.After(ctlSetupTimeout):
	}
	c.stop()
	return nil, errors.New("the -serve-fleet child did not get ready (see fleet.log)")
}

// cpuOrZero is the child's user plus system CPU time (/proc/<pid>/stat);
// 0 for no child.
func (c *fleetChild) cpuOrZero() time.Duration {
	if c == nil {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ 100
}

// stop sends SIGTERM and waits (then kills) the child.
func (c *fleetChild) stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(stopTimeout):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
	_ = c.logF.Close()
}
