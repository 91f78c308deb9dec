package proxyproto

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/testlog"
)

func TestConnHooksOnlyWhenEnabled(t *testing.T) {
	log := testlog.New(t, "proxyproto")
	require.Nil(t, ConnHooks(&config.ProxyProtocol{ProxyProtocolTrustedSources: "10.0.0.0/8"}, log))
	hooks := ConnHooks(&config.ProxyProtocol{EnableProxyProtocol: true, ProxyProtocolTrustedSources: "10.0.0.0/8"}, log)
	require.Len(t, hooks, 1)
}
