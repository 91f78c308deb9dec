// Command namesrv runs a RocketMQ NameServer (mqnamesrv). Built with
// -tags embedded_controller it can also run the Controller in the same
// process (enableControllerInNamesrv=true).
//
// Configuration: the -c properties file (Java's defaults without one),
// then NAMESRV_<KEY>=value environment variables over it (any case,
// underscores ignored: NAMESRV_LISTEN_PORT=9876 sets listenPort; see
// config.EnvProps). -p prints the result and -check says it is valid,
// both after the checks the server makes before opening a port (exit 1
// with every broken rule otherwise); -healthcheck asks its metrics
// listener's /healthz and exits 0 or 1 (a container's HEALTHCHECK). TLS
// comes from the tls.* keys of the -c file, of tls.config.file, of
// $JAVA_OPT and of -Dkey=value arguments, as Java's start scripts pass them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/process"
	"github.com/rmqgo/nameserver/internal/version"
	"github.com/rmqgo/nameserver/metrics/statuspage"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/tlsconf"
)

// options are the command-line flags of mqnamesrv.
type options struct {
	configFile  string
	printOnly   bool
	check       bool
	namesrv     string
	healthcheck bool
	version     bool
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	args, javaProps, err := config.JavaProps(args, os.Getenv(config.JavaOptEnv))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	if opts.version {
		fmt.Fprintln(stdout, version.String("namesrv"))
		return 0
	}
	cfg, err := loadConfig(opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if opts.printOnly || opts.check {
		return runCheck(opts, cfg, javaProps, stdout, stderr)
	}
	if opts.healthcheck {
		return healthcheck(cfg, stderr)
	}
	logger, err := process.NewLogger("namesrv", config.NamesrvEnvPrefix, stderr, os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	signals := process.NotifyStop()
	defer signal.Stop(signals)
	defer process.DumpOnQuit(logger)()
	logStart(logger, cfg, opts.configFile)
	tlsm, err := startTLS(cfg, javaProps, logger)
	if err != nil {
		logger.Error("start failed", "error", err)
		return 1
	}
	defer tlsm.Close()
	stop, err := startServers(cfg, tlsm, logger)
	if err != nil {
		logger.Error("start failed", "error", err)
		return 1
	}
	afterStart()
	logger.Info("shutting down", "signal", (<-signals).String())
	return stop()
}

// afterStart runs once the servers are up, before run waits for a signal
// (tests signal there).
var afterStart = func() {}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("mqnamesrv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.configFile, "c", "", "Name server config properties file")
	fs.BoolVar(&o.printOnly, "p", false, "Print all config items and exit (1, with the errors, if the server would refuse them)")
	fs.BoolVar(&o.check, "check", false, "Check the configuration as the server does before it opens a port, open none, and exit 0 (valid) or 1")
	fs.StringVar(&o.namesrv, "n", "", "Name server address list, eg: '192.168.0.1:9876;192.168.0.2:9876' (accepted, unused)")
	fs.BoolVar(&o.healthcheck, "healthcheck", false, "GET /healthz of this configuration's metrics listener and exit 0 (200) or 1")
	fs.BoolVar(&o.version, "version", false, "Print the version and the Controller format this binary reads, and exit")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: namesrv [-c file] [-p | -check | -healthcheck | -version] [-Dtls.key=value ...]")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "  -Dkey=value\n    \tJava-style property; tls.* keys set TLS (they win over the -c file and tls.config.file)")
	}
	return o, fs.Parse(args)
}

// loadConfig reads the -c file (Java's defaults without one) with the
// NAMESRV_<KEY> environment variables over it.
func loadConfig(o options) (*config.NamesrvConfig, error) {
	return config.LoadWithEnv(o.configFile, os.Environ())
}

// startServers binds every listener before any serves (the embedded
// Controller's, then the NameServer's remoting and metrics listeners), so
// a busy port fails the start with nothing served; then it serves the
// NameServer and starts the Controller. It returns a function that stops
// them in reverse order and gives the exit status. The metrics listener
// also serves the status page at / (package metrics/statuspage).
func startServers(cfg *config.NamesrvConfig, tlsm *tlsconf.Manager, logger hclog.Logger) (func() int, error) {
	page := statuspage.New()
	srv, err := namesrv.New(cfg, logger, namesrv.WithTLS(tlsm), namesrv.WithMetricsRoute(statuspage.Pattern, page))
	if err != nil {
		return nil, err
	}
	page.SetNamesrv(srv)
	ctl, err := newController(cfg, srv, tlsm, logger)
	if err == nil {
		if err = srv.Start(); err != nil {
			ctl.stop()
		} else if err = ctl.start(); err == nil {
			ctl.showOn(page)
		}
	}
	if err != nil {
		_ = srv.Shutdown(context.Background())
		return nil, err
	}
	return func() int {
		ctl.stop()
		return shutdown(srv, logger)
	}, nil
}

func shutdown(srv *namesrv.Server, logger hclog.Logger) int {
	ctx, cancel := context.WithTimeout(context.Background(), srv.Config().ShutdownBudget())
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		logger.Error("shutdown", "error", err)
		return 1
	}
	return 0
}
