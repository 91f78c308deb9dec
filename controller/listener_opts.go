//go:build embedded_controller

package controller

import (
	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/proxyproto"
	"github.com/rmqgo/nameserver/remoting"
)

// proxyHooks returns the PROXY protocol hook when enableProxyProtocol is
// on: it runs first, before any TLS hook, since a load balancer sends the
// header before the TLS handshake. The address it reveals is the
// connection's RemoteAddr: every log line and whatever checks the peer's
// IP see the client, not the load balancer.
func proxyHooks(p *config.ProxyProtocol, log hclog.Logger) []remoting.ConnHook {
	if !p.EnableProxyProtocol {
		return nil
	}
	trusted, _ := p.TrustedProxies() // validated by New
	return []remoting.ConnHook{proxyproto.Hook(trusted, log.Named("proxyproto"))}
}

// The Controller's remoting server has no GO_AWAY phase, whatever
// enableShutdownGracefully says: Shutdown stops serving before it closes
// Raft, so a leader waiting there would keep the group's leadership while
// refusing its requests. Java's ControllerManager.shutdown closes the
// controller (DLedger) first. It drains at once, as before.
