//go:build !embedded_controller

package main

import (
	"errors"
	"io"

	"github.com/hashicorp/go-hclog"
)

// runCtlStorm needs the Controller, which only the embedded_controller
// build has.
func runCtlStorm(ctlOptions, int64, hclog.Logger, hclog.Logger) (*ctlResult, error) {
	return nil, errors.New("ctlstorm needs a build with -tags embedded_controller")
}

// serveFleet needs the brokerflow fleet of the embedded_controller build.
func serveFleet(ctlOptions, io.Writer, hclog.Logger) error {
	return errors.New("-serve-fleet needs a build with -tags embedded_controller")
}
