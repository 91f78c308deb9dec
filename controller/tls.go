//go:build embedded_controller

package controller

import (
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/tlsconf"
)

// WithTLS applies m (the tls.* settings) to the controller: its remoting
// listener sniffs each connection's first byte and serves TLS or plaintext
// as tls.server.mode says, and NOTIFY_BROKER_ROLE_CHANGED (1008) dials
// brokers with TLS when tls.enable is true. The Raft transport is not
// affected. The caller keeps ownership of m.
func WithTLS(m *tlsconf.Manager) Option { return func(o *options) { o.tls = m } }

func (o options) connHooks() []remoting.ConnHook { return o.tls.ConnHooks() }
