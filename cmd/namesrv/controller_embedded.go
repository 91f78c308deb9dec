//go:build embedded_controller

package main

import (
	"context"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/metrics/statuspage"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/tlsconf"
)

// controllerStopTimeout bounds the embedded controller's graceful stop.
const controllerStopTimeout = 10 * time.Second

// newController binds the embedded Controller's listeners when
// enableControllerInNamesrv=true, from the controller keys of the same -c
// file (config.Validate already checked them, port collisions included),
// and serves nothing until start. With metricsExporterType=PROM its
// families join the NameServer's registry, served on the NameServer's
// endpoint.
func newController(cfg *config.NamesrvConfig, srv *namesrv.Server, tlsm *tlsconf.Manager, logger hclog.Logger) (*embedded, error) {
	return bindController(cfg, srv, logger, controller.WithTLS(tlsm))
}

// embedded is the embedded Controller, bound (ctl nil when disabled).
type embedded struct {
	ctl    *controller.Controller
	m      *metrics.Controller
	logger hclog.Logger
}

// bindController is newController with extra controller options (tests
// hand over loopback listeners).
func bindController(cfg *config.NamesrvConfig, srv *namesrv.Server, logger hclog.Logger,
	opts ...controller.Option) (*embedded, error) {
	e := &embedded{logger: logger}
	if !cfg.EnableControllerInNamesrv {
		return e, nil
	}
	if reg := srv.MetricsRegistry(); reg != nil {
		e.m = metrics.NewController(reg)
		opts = append(opts, controller.WithMetrics(e.m))
	}
	ctl, err := controller.New(&cfg.Controller, logger, opts...)
	if err != nil {
		return nil, err
	}
	e.ctl = ctl
	return e, nil
}

// start opens Raft and serves; on failure the Controller is stopped.
func (e *embedded) start() error {
	if e.ctl == nil {
		return nil
	}
	if err := e.ctl.Start(); err != nil {
		_ = e.ctl.Shutdown(context.Background())
		return err
	}
	if e.m != nil {
		e.ctl.ExportMetrics(e.m)
	}
	return nil
}

// showOn makes the status page show the started Controller (nothing when
// disabled).
func (e *embedded) showOn(page *statuspage.Page) {
	if e.ctl != nil {
		page.SetController(e.ctl)
	}
}

// stop stops the Controller, started or only bound.
func (e *embedded) stop() {
	if e.ctl != nil {
		stopController(e.ctl, e.logger)
	}
}

// runController binds and starts the embedded Controller (tests); the
// returned func stops it.
func runController(cfg *config.NamesrvConfig, srv *namesrv.Server, logger hclog.Logger,
	opts ...controller.Option) (func(), error) {
	e, err := bindController(cfg, srv, logger, opts...)
	if err != nil {
		return nil, err
	}
	if err := e.start(); err != nil {
		return nil, err
	}
	return e.stop, nil
}

func stopController(ctl *controller.Controller, logger hclog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), controllerStopTimeout)
	defer cancel()
	if err := ctl.Shutdown(ctx); err != nil {
		logger.Error("controller shutdown", "error", err)
	}
}
