package proxyproto

import (
	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
)

// ConnHooks returns the PROXY protocol hook of a remoting listener when
// enableProxyProtocol is on, nil otherwise. It goes first, before any TLS
// hook, since a load balancer sends the header before the TLS handshake.
// The address it reveals is the connection's RemoteAddr: every log line
// and whatever checks the peer's IP see the client, not the load balancer.
// p must have passed config validation (its trusted sources parse).
func ConnHooks(p *config.ProxyProtocol, log hclog.Logger) []remoting.ConnHook {
	if !p.EnableProxyProtocol {
		return nil
	}
	trusted, _ := p.TrustedProxies() // validated with the config
	return []remoting.ConnHook{Hook(trusted, log.Named("proxyproto"))}
}
