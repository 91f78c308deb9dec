//go:build embedded_controller

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
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
	if opts.printOnly {
		_, _ = stdout.Write(cfg.Render())
		return 0
	}
	if opts.restore != "" {
		return runRestore(cfg, opts, stdout, stderr)
	}
	logger := newLogger(stderr)
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

func newLogger(w io.Writer) hclog.Logger {
	level := hclog.LevelFromString(os.Getenv("CONTROLLER_LOG_LEVEL"))
	if level == hclog.NoLevel {
		level = hclog.Info
	}
	return hclog.New(&hclog.LoggerOptions{Name: "mqcontroller", Output: w, Level: level})
}

// serve runs the controller (and, with metricsExporterType=PROM, its
// metrics endpoint) until SIGTERM or SIGINT, then stops it gracefully
// within shutdownWaitTimeSeconds.
func serve(cfg *config.ControllerConfig, logger hclog.Logger, o nodeOptions) int {
	// Signals are caught from before the start, so that one arriving while
	// the node starts still ends in the graceful stop.
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(ch)
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
