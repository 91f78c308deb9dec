// Command brokerflow plays two or three controller-mode test brokers of one
// broker set against running Controllers and NameServers, as Java brokers
// with enableControllerMode=true would (docs/controller.md section 7): leader
// discovery, id assignment, registration, heartbeats, the first election,
// NameServer registration, sync-state set changes, a master failover seen
// through NOTIFY_BROKER_ROLE_CHANGED on each survivor's own port, and the
// old master's return as a slave. Each step is printed with its timing;
// the exit code is 0 on success, 1 when a step fails, 2 on bad flags.
//
//	brokerflow -a "127.0.0.1:9878;127.0.0.1:9868;127.0.0.1:9858" \
//	           -n "127.0.0.1:9876;127.0.0.1:9886;127.0.0.1:9896"
//
// It speaks raw remoting, so the default build (without Raft) has it too.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/test/ctlbroker"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args, runs the flow until it ends or SIGINT/SIGTERM, and
// returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stdout, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if _, err := ctlbroker.Run(ctx, cfg); err != nil {
		fmt.Fprintln(stderr, "brokerflow:", err)
		return 1
	}
	return 0
}

// parseFlags turns the command line into a FlowConfig writing to stdout.
func parseFlags(args []string, stdout, stderr io.Writer) (ctlbroker.FlowConfig, error) {
	fs := flag.NewFlagSet("brokerflow", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ctl := fs.String("a", "", "controller addresses (controllerAddr), ';'-separated; required")
	ns := fs.String("n", "", "NameServer addresses (namesrvAddr), ';'-separated; empty skips the NameServer steps")
	cfg := ctlbroker.FlowConfig{Out: stdout}
	fs.StringVar(&cfg.Cluster, "cluster", ctlbroker.DefaultCluster, "clusterName")
	fs.StringVar(&cfg.BrokerName, "b", "", "brokerName of the set (default brokerflow-<unix millis>, a fresh set)")
	fs.IntVar(&cfg.Brokers, "brokers", 3, "brokers in the set, 2 or 3")
	fs.DurationVar(&cfg.HeartbeatInterval, "hb-interval", time.Second, "heartbeat (904) period")
	fs.DurationVar(&cfg.HeartbeatTimeout, "hb-timeout", ctlbroker.DefaultHeartbeatTimeout, "heartbeatTimeoutMills sent in 904")
	fs.DurationVar(&cfg.StepTimeout, "step-timeout", 30*time.Second, "bound of each step, waits included")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the broker set in the controllers (no 1011 at the end)")
	verbose := fs.Bool("v", false, "debug logs to stderr")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	cfg.Controllers, cfg.NameServers = splitAddrs(*ctl), splitAddrs(*ns)
	if len(cfg.Controllers) == 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: brokerflow -a CONTROLLERS [-n NAMESERVERS] [flags]")
		fs.PrintDefaults()
		return cfg, errors.New("bad usage")
	}
	cfg.Logger = newLogger(stderr, *verbose)
	return cfg, nil
}

// splitAddrs splits a ';'-separated address list, dropping blanks.
func splitAddrs(list string) []string {
	var out []string
	for _, a := range strings.Split(list, ";") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// newLogger logs warnings, or with -v everything, to w.
func newLogger(w io.Writer, verbose bool) hclog.Logger {
	level := hclog.Warn
	if verbose {
		level = hclog.Debug
	}
	return hclog.New(&hclog.LoggerOptions{Name: "brokerflow", Output: w, Level: level})
}
