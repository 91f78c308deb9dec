//go:build embedded_controller

package controller

import (
	"fmt"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
)

// newACL loads the accounts file when aclEnable is set (nil when off);
// denials are counted in the metrics given by WithMetrics, if any. The
// controller's own requests to brokers (1008) are not signed: brokers do
// not check them.
func newACL(cfg *config.ControllerConfig, c *Controller) (*acl.Authorizer, error) {
	if !cfg.AclEnable {
		return nil, nil
	}
	az, err := acl.New(acl.Options{Path: cfg.AclConfigPath, AnonymousRead: cfg.AclAnonymousRead,
		Logger: c.logger.Named("acl"), OnDeny: func(p acl.Permission) { c.opts.aclMetrics.Denied(p.String()) }})
	if err != nil {
		return nil, fmt.Errorf("controller: aclConfigPath: %w", err)
	}
	return az, nil
}

// authorizeHook is the remoting.ServerConfig.Authorize of az (nil if off).
func authorizeHook(az *acl.Authorizer) func(*remoting.Conn, *remoting.Command) *remoting.Command {
	if az == nil {
		return nil
	}
	return az.Authorize
}

func (c *Controller) closeACL() {
	if c.acl != nil {
		c.acl.Close()
	}
}
