//go:build !embedded_controller

package main

import (
	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/tlsconf"
)

// startController is a no-op in the default build: config.Validate already
// rejected enableControllerInNamesrv=true.
func startController(_ *config.NamesrvConfig, _ *namesrv.Server, _ *tlsconf.Manager, _ hclog.Logger) (func(), error) {
	return func() {}, nil
}
