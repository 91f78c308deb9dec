//go:build embedded_controller

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/internal/process"
	"github.com/rmqgo/nameserver/metrics"
)

// runController loads the -c file and runs the controller until a signal.
func runController(opts options, stdout, stderr io.Writer) int {
	if opts.configFile == "" {
		fmt.Fprintln(stderr, "mqcontroller: -c <controller.properties> is required (controllerDLegerPeers, controllerRaftPeers, controllerDLegerSelfId)")
		return 2
	}
	cfg, err := config.LoadControllerWithEnv(opts.configFile, os.Environ())
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if opts.printOnly || opts.check {
		return runCheck(opts, cfg, stdout, stderr)
	}
	if opts.restore != "" {
		return runRestore(cfg, opts, stdout, stderr)
	}
	logger, err := process.NewLogger("mqcontroller", config.ControllerEnvPrefix, stderr, os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	logStart(logger, cfg, opts.configFile)
	tlsm, err := loadTLS(cfg.RawProperties(), opts.javaProps, logger)
	if err != nil {
		logger.Error("start failed", "error", err)
		return 1
	}
	defer tlsm.Close()
	return serve(cfg, logger, nodeOptions{controller: []controller.Option{controller.WithTLS(tlsm)},
		metrics: metrics.EndpointConfig{Wrap: tlsm.Listener}})
}

// afterStart runs once the node is up, before serve waits for a signal
// (tests signal there).
var afterStart = func() {}

// serve runs the controller (and, with metricsExporterType=PROM, its
// metrics endpoint) until SIGTERM, SIGINT or SIGHUP, then stops it
// gracefully within shutdownWaitTimeSeconds; SIGQUIT logs every
// goroutine's stack and it goes on.
func serve(cfg *config.ControllerConfig, logger hclog.Logger, o nodeOptions) int {
	// Signals are caught from before the start, so that one arriving while
	// the node starts still ends in the graceful stop.
	ch := process.NotifyStop()
	defer signal.Stop(ch)
	defer process.DumpOnQuit(logger)()
	n, err := startNode(cfg, logger, o)
	if err != nil {
		logger.Error("start failed", "error", err)
		return 1
	}
	afterStart()
	logger.Info("shutting down", "signal", (<-ch).String())
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(cfg.ShutdownWaitTimeSeconds)*time.Second)
	defer cancel()
	if err := n.stop(ctx); err != nil {
		logger.Error("shutdown", "error", err)
		return 1
	}
	return 0
}
