//go:build embedded_controller

package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/metrics/statuspage"
)

// node is a running standalone controller and, with
// metricsExporterType=PROM, its Prometheus endpoint.
type node struct {
	ctl *controller.Controller
	ep  *metrics.Endpoint // nil when metrics are off
}

// nodeOptions are what tests hand over: controller options (loopback
// listeners) and the metrics endpoint's listener settings.
type nodeOptions struct {
	controller []controller.Option
	metrics    metrics.EndpointConfig
}

// startNode binds every listener before any serves: the controller's
// remoting and Raft listeners (controller.New), then the metrics endpoint;
// then it starts the controller and lets the endpoint read it. A busy port
// fails the start with nothing served.
func startNode(cfg *config.ControllerConfig, logger hclog.Logger, o nodeOptions) (*node, error) {
	pe := newPromEndpoint(cfg)
	opts := o.controller
	if pe != nil {
		opts = append(opts, controller.WithMetrics(pe.m))
	}
	ctl, err := controller.New(cfg, logger, opts...)
	if err != nil {
		return nil, err
	}
	if err = pe.listen(cfg, logger, o.metrics); err == nil {
		err = ctl.Start()
	}
	if err != nil {
		return nil, errors.Join(err, ctl.Shutdown(context.Background()), pe.shutdown(context.Background()))
	}
	pe.attach(ctl)
	return &node{ctl: ctl, ep: pe.endpoint()}, nil
}

// stop shuts the controller down, then the endpoint, within ctx.
func (n *node) stop(ctx context.Context) error {
	err := n.ctl.Shutdown(ctx)
	if n.ep != nil {
		err = errors.Join(err, n.ep.Shutdown(ctx))
	}
	return err
}

// promEndpoint is the controller's /metrics, /healthz, /readyz and the
// status page at /.
type promEndpoint struct {
	m   *metrics.Controller
	reg *metrics.Registry
	ep  *metrics.Endpoint
	ctl atomic.Pointer[controller.Controller] // set once started
	// page is the status page at / (package metrics/statuspage).
	page *statuspage.Page
}

// listenMetrics serves the endpoint at metricsPromExporterHost (empty =
// bindAddress) and metricsPromExporterPort when metricsExporterType=PROM;
// nil otherwise. /readyz answers 200 once a Raft leader is known.
func listenMetrics(cfg *config.ControllerConfig, logger hclog.Logger, ec metrics.EndpointConfig) (*promEndpoint, error) {
	pe := newPromEndpoint(cfg)
	if err := pe.listen(cfg, logger, ec); err != nil {
		return nil, err
	}
	return pe, nil
}

// newPromEndpoint is the endpoint's registry and controller metrics when
// metricsExporterType=PROM (nil otherwise), not yet listening.
func newPromEndpoint(cfg *config.ControllerConfig) *promEndpoint {
	if _, on := metricsAddr(cfg); !on {
		return nil
	}
	reg := metrics.NewProcessRegistry()
	return &promEndpoint{m: metrics.NewController(reg), reg: reg, page: statuspage.New()}
}

func metricsAddr(cfg *config.ControllerConfig) (string, bool) {
	return metrics.ExporterAddr(cfg.MetricsExporterType, cfg.MetricsPromExporterHost,
		cfg.BindAddress, cfg.MetricsPromExporterPort)
}

// listen binds and serves the endpoint (nothing when pe is nil).
func (pe *promEndpoint) listen(cfg *config.ControllerConfig, logger hclog.Logger, ec metrics.EndpointConfig) error {
	if pe == nil {
		return nil
	}
	ec.Addr, _ = metricsAddr(cfg)
	ec.Registry, ec.Logger = pe.reg, logger.Named("metrics")
	ec.Limits = metrics.LimitsFrom(cfg.MetricsListener)
	ec.Routes = maps.Clone(ec.Routes)
	if ec.Routes == nil {
		ec.Routes = map[string]http.Handler{}
	}
	ec.Routes[statuspage.Pattern] = pe.page
	ep, err := metrics.Listen(ec)
	if err != nil {
		return fmt.Errorf("controller: %w", err)
	}
	ep.AddReadiness("controller", pe.ready)
	pe.page.AddListener("metrics (this page)", ep.Addr().String())
	pe.ep = ep
	logger.Info("metrics endpoint started", "addr", ep.Addr().String())
	return nil
}

// ready is nil once the started controller knows a Raft leader.
func (pe *promEndpoint) ready() error {
	ctl := pe.ctl.Load()
	if ctl == nil {
		return errors.New("starting")
	}
	return ctl.LeaderKnown()
}

// attach makes the endpoint read the started controller.
func (pe *promEndpoint) attach(ctl *controller.Controller) {
	if pe != nil {
		ctl.ExportMetrics(pe.m)
		pe.ctl.Store(ctl)
		pe.page.SetController(ctl)
	}
}

func (pe *promEndpoint) endpoint() *metrics.Endpoint {
	if pe == nil {
		return nil
	}
	return pe.ep
}

func (pe *promEndpoint) shutdown(ctx context.Context) error {
	if pe == nil || pe.ep == nil {
		return nil
	}
	return pe.ep.Shutdown(ctx)
}
