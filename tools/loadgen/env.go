package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/remoting"
)

// buildTimeout bounds `go build ./cmd/namesrv`.
const buildTimeout = 5 * time.Minute

// env is what the workloads share: options, a temp dir, the binaries.
type env struct {
	o     options
	log   hclog.Logger
	dir   string // temp dir: configs, logs, state, canned body
	nsBin string // NameServer binary, or this binary with -profile-dir
	self  string // this binary (limit server, in-process NameServer)
}

// newEnv makes the temp dir and finds or builds the binaries.
func newEnv(o options, log hclog.Logger) (*env, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "loadgen-")
	if err != nil {
		return nil, err
	}
	e := &env{o: o, log: log, dir: dir, self: self, nsBin: o.namesrvBin}
	switch {
	case o.profileDir != "":
		e.nsBin = self
		err = os.MkdirAll(o.profileDir, 0o755)
	case e.nsBin == "":
		e.nsBin, err = buildNamesrv(dir, log)
	}
	if err != nil {
		e.cleanup()
		return nil, err
	}
	return e, nil
}

// buildNamesrv runs go build for the NameServer command into dir.
func buildNamesrv(dir string, log hclog.Logger) (string, error) {
	out := filepath.Join(dir, "namesrv")
	log.Info("building namesrv", "out", out)
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "github.com/rmqgo/nameserver/cmd/namesrv")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/namesrv: %w\n%s", err, msg)
	}
	return out, nil
}

// cleanup removes the temp dir.
func (e *env) cleanup() { _ = os.RemoveAll(e.dir) }

// profilePath is where a child's CPU profile goes ("" without -profile-dir).
func (e *env) profilePath(name string) string {
	if e.o.profileDir == "" {
		return ""
	}
	return filepath.Join(e.o.profileDir, name+".cpu.pprof")
}

// namesrv starts a fresh NameServer child with its own state dir.
func (e *env) namesrv(workload string) (*child, error) {
	return e.namesrvWith(workload, false)
}

// namesrvWith is namesrv, with metrics also serving /metrics.
func (e *env) namesrvWith(workload string, metrics bool) (*child, error) {
	dir, err := os.MkdirTemp(e.dir, workload+"-")
	if err != nil {
		return nil, err
	}
	if e.o.profileDir != "" { // keep the child's log next to its profiles
		dir, err = os.MkdirTemp(e.o.profileDir, workload+"-")
		if err != nil {
			return nil, err
		}
	}
	return startNamesrv(e.nsBin, dir, e.o.profileDir != "", e.profilePath(workload+"-namesrv"), metrics, e.log)
}

// dial opens a remoting client (registrations, writers).
func (e *env) dial(addr string) (*remoting.Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	return remoting.Dial(ctx, addr, remoting.ClientOptions{Logger: e.log.Named("client")})
}

// runWorkloads runs the selected workloads and prints the report.
func runWorkloads(o options, stdout io.Writer, log hclog.Logger) error {
	e, err := newEnv(o, log)
	if err != nil {
		return err
	}
	defer e.cleanup()
	rep := &report{Machine: describeMachine(), Settings: settingsOf(o)}
	if err := e.runSelected(rep); err != nil {
		return err
	}
	rep.evaluate()
	if err := writeJSONFile(o.outFile, rep); err != nil {
		return err
	}
	if o.jsonOut {
		return writeJSON(stdout, rep)
	}
	rep.printTable(stdout)
	return nil
}

// runSelected runs small, churn and rss as selected by -workload.
func (e *env) runSelected(rep *report) error {
	want := func(w string) bool { return e.o.workload == "all" || e.o.workload == w }
	var err error
	if want("small") {
		rep.Small, err = e.runSmall()
	}
	if err == nil && want("churn") {
		rep.Churn, err = e.runChurn()
	}
	if err == nil && want("rss") {
		rep.RSS, err = e.runRSS()
	}
	if err == nil && want("scale") {
		rep.Scale, err = e.runScale()
	}
	if err == nil && want("restart") {
		rep.Restart, err = e.runRestart()
	}
	if err == nil && e.o.workload == "tls" {
		rep.TLS, err = e.runTLS()
	}
	return err
}

// writeJSON writes v indented.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeJSONFile writes v to path unless path is empty.
func writeJSONFile(path string, v any) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(writeJSON(f, v), f.Close())
}
