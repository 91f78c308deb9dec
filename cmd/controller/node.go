//go:build embedded_controller

package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/metrics"
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

// startNode binds the metrics endpoint first (so a busy port fails before
// Raft starts), then starts the controller and lets the endpoint read it.
func startNode(cfg *config.ControllerConfig, logger hclog.Logger, o nodeOptions) (*node, error) {
	pe, err := listenMetrics(cfg, logger, o.metrics)
	if err != nil {
		return nil, err
	}
	opts := o.controller
	if pe != nil {
		opts = append(opts, controller.WithMetrics(pe.m))
	}
	ctl, err := controller.New(cfg, logger, opts...)
	if err == nil {
		if err = ctl.Start(); err != nil {
			_ = ctl.Shutdown(context.Background())
		}
	}
	if err != nil {
		return nil, errors.Join(err, pe.shutdown(context.Background()))
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

// promEndpoint is the controller's /metrics, /healthz and /readyz.
type promEndpoint struct {
	m   *metrics.Controller
	ep  *metrics.Endpoint
	ctl atomic.Pointer[controller.Controller] // set once started
}

// listenMetrics serves the endpoint at metricsPromExporterHost (empty =
// bindAddress) and metricsPromExporterPort when metricsExporterType=PROM;
// nil otherwise. /readyz answers 200 once a Raft leader is known.
func listenMetrics(cfg *config.ControllerConfig, logger hclog.Logger, ec metrics.EndpointConfig) (*promEndpoint, error) {
	addr, on := metrics.ExporterAddr(cfg.MetricsExporterType, cfg.MetricsPromExporterHost,
		cfg.BindAddress, cfg.MetricsPromExporterPort)
	if !on {
		return nil, nil
	}
	reg := metrics.NewProcessRegistry()
	pe := &promEndpoint{m: metrics.NewController(reg)}
	ec.Addr, ec.Registry, ec.Logger = addr, reg, logger.Named("metrics")
	ec.Limits = metrics.LimitsFrom(cfg.MetricsListener)
	ep, err := metrics.Listen(ec)
	if err != nil {
		return nil, fmt.Errorf("controller: %w", err)
	}
	ep.AddReadiness("controller", pe.ready)
	pe.ep = ep
	logger.Info("metrics endpoint started", "addr", ep.Addr().String())
	return pe, nil
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
	}
}

func (pe *promEndpoint) endpoint() *metrics.Endpoint {
	if pe == nil {
		return nil
	}
	return pe.ep
}

func (pe *promEndpoint) shutdown(ctx context.Context) error {
	if pe == nil {
		return nil
	}
	return pe.ep.Shutdown(ctx)
}
