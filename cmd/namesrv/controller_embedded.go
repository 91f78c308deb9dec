//go:build embedded_controller

package main

import (
	"context"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
)

// controllerStopTimeout bounds the embedded controller's graceful stop.
const controllerStopTimeout = 10 * time.Second

// startController starts the embedded Controller when
// enableControllerInNamesrv=true, from the controller keys of the same -c
// file (config.Validate already checked them, port collisions included).
// The returned func stops it.
func startController(cfg *config.Namesrv, logger hclog.Logger) (func(), error) {
	if !cfg.EnableControllerInNamesrv {
		return func() {}, nil
	}
	ctl, err := controller.New(&cfg.Controller, logger)
	if err != nil {
		return nil, err
	}
	if err := ctl.Start(); err != nil {
		_ = ctl.Shutdown(context.Background())
		return nil, err
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), controllerStopTimeout)
		defer cancel()
		if err := ctl.Shutdown(ctx); err != nil {
			logger.Error("controller shutdown", "error", err)
		}
	}, nil
}
