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
// not check them; its requests to the other controllers (the leader's
// 1005 version poll) are signed with controllerAccessKey (peerSigner).
func newACL(cfg *config.ControllerConfig, c *Controller) (*acl.Authorizer, error) {
	if !cfg.AclEnable {
		if cfg.ControllerAccessKey != "" {
			c.logger.Warn("controllerAccessKey is ignored: aclEnable is false, requests to the other controllers are not signed")
		}
		return nil, nil
	}
	az, err := acl.New(acl.Options{Path: cfg.AclConfigPath, AnonymousRead: cfg.AclAnonymousRead,
		Logger: c.logger.Named("acl"), OnDeny: func(p acl.Permission) { c.opts.aclMetrics.Denied(p.String()) }})
	if err != nil {
		return nil, fmt.Errorf("controller: aclConfigPath: %w", err)
	}
	return az, nil
}

// peerSigner returns the hook that signs req, a request to another
// controller, with the account controllerAccessKey names in the accounts
// in force now (a hot reload may have removed or changed it): nil when
// aclEnable is false or the key is not set (req is sent unsigned), an
// error wrapping errPeerAccount and naming the key when the account is
// missing or its role is not exactly what req needs (more would make the
// signature of a fieldless request one of a stronger account: see
// config.ControllerAccess).
func (c *Controller) peerSigner(req *remoting.Command) (func(*remoting.Command), error) {
	cfg := c.config()
	key := cfg.ControllerAccessKey
	if c.acl == nil || key == "" {
		return nil, nil
	}
	acc, ok := c.acl.Account(key)
	if !ok {
		return nil, fmt.Errorf("%w: controllerAccessKey (%s) is not an account of aclConfigPath (%s)",
			errPeerAccount, key, cfg.AclConfigPath)
	}
	if need := acl.Required(req); acc.Role != need {
		return nil, fmt.Errorf("%w: controllerAccessKey (%s) has role %s, code %d needs exactly %s",
			errPeerAccount, key, acc.Role, req.Code, need)
	}
	return acc.Sign, nil
}

// unsignedHint is added to a peer's NO_PERMISSION answer to an unsigned
// request: what the operator sets to have it signed.
const unsignedHint = " (sent unsigned: set controllerAccessKey, with aclEnable=true, " +
	"to an account of aclConfigPath that every node's accounts file has)"

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
