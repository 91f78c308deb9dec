//go:build embedded_controller

package main

import (
	"context"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/tlsconf"
)

// controllerStopTimeout bounds the embedded controller's graceful stop.
const controllerStopTimeout = 10 * time.Second

// startController starts the embedded Controller when
// enableControllerInNamesrv=true, from the controller keys of the same -c
// file (config.Validate already checked them, port collisions included).
// With metricsExporterType=PROM its families join the NameServer's
// registry, served on the NameServer's endpoint. The returned func stops
// it.
func startController(cfg *config.NamesrvConfig, srv *namesrv.Server, tlsm *tlsconf.Manager, logger hclog.Logger) (func(), error) {
	return runController(cfg, srv, logger, controller.WithTLS(tlsm))
}

// runController is startController with extra controller options (tests
// hand over loopback listeners).
func runController(cfg *config.NamesrvConfig, srv *namesrv.Server, logger hclog.Logger,
	opts ...controller.Option) (func(), error) {
	if !cfg.EnableControllerInNamesrv {
		return func() {}, nil
	}
	var m *metrics.Controller
	if reg := srv.MetricsRegistry(); reg != nil {
		m = metrics.NewController(reg)
		opts = append(opts, controller.WithMetrics(m))
	}
	ctl, err := controller.New(&cfg.Controller, logger, opts...)
	if err != nil {
		return nil, err
	}
	if err := ctl.Start(); err != nil {
		_ = ctl.Shutdown(context.Background())
		return nil, err
	}
	if m != nil {
		ctl.ExportMetrics(m)
	}
	return func() { stopController(ctl, logger) }, nil
}

func stopController(ctl *controller.Controller, logger hclog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), controllerStopTimeout)
	defer cancel()
	if err := ctl.Shutdown(ctx); err != nil {
		logger.Error("controller shutdown", "error", err)
	}
}
