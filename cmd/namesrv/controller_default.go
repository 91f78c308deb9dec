//go:build !embedded_controller

package main

import (
	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/metrics/statuspage"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/tlsconf"
)

// newController is a no-op in the default build: config.Validate already
// rejected enableControllerInNamesrv=true.
func newController(_ *config.NamesrvConfig, _ *namesrv.Server, _ *tlsconf.Manager, _ hclog.Logger) (*embedded, error) {
	return &embedded{}, nil
}

// embedded is the absent embedded Controller.
type embedded struct{}

func (*embedded) start() error { return nil }
func (*embedded) stop()        {}

// showOn does nothing: there is no Controller to show.
func (*embedded) showOn(*statuspage.Page) {}
