package namesrv

import (
	"bufio"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
)

// proxiedLookup opens a connection to srv, sends preamble (a PROXY header
// or nothing) and an anonymous route lookup (GetRouteInfoByTopic, as
// Java's MQClientAPIImpl.getTopicRouteInfoFromNameServer sends it) in one
// write, and returns the response code, or -1 when the connection is
// closed without one.
func proxiedLookup(t *testing.T, srv *Server, preamble string) int32 {
	nc, err := net.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	req := remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": "NoSuchTopic"}, nil)
	_, _ = nc.Write(remoting.EncodeFrame([]byte(preamble), req))
	frame, err := remoting.ReadFrame(bufio.NewReader(nc), 0, nil)
	if err != nil {
		return -1
	}
	resp, err := remoting.DecodeFrame(frame)
	require.NoError(t, err)
	return resp.Code
}

// TestAttackProxyHeaderAndACLAllowList: behind a trusted load balancer the
// PROXY header's client address is what globalWhiteRemoteAddresses
// checks (allowed when listed, 16 when not, the balancer's own address
// 16); from an untrusted source the same header closes the connection
// before any request is handled, whatever address it claims.
func TestAttackProxyHeaderAndACLAllowList(t *testing.T) {
	path := writeACLFile(t, "globalWhiteRemoteAddresses: ['192.0.2.*']\naccounts: []\n")
	withProxy := func(trusted string) func(c *config.NamesrvConfig) {
		return func(c *config.NamesrvConfig) {
			c.AclEnable, c.AclConfigPath, c.AclAnonymousRead = true, path, true
			c.EnableProxyProtocol, c.ProxyProtocolTrustedSources = true, trusted
		}
	}
	srv := startServer(t, withProxy("127.0.0.1"))
	require.Equal(t, remoting.TopicNotExist, proxiedLookup(t, srv, "PROXY TCP4 192.0.2.7 127.0.0.1 40000 9876\r\n"),
		"a listed client behind the trusted balancer is served")
	require.Equal(t, remoting.NoPermission, proxiedLookup(t, srv, "PROXY TCP4 203.0.113.9 127.0.0.1 40000 9876\r\n"))
	require.Equal(t, remoting.NoPermission, proxiedLookup(t, srv, ""), "the balancer itself is not listed")
	require.Equal(t, remoting.NoPermission, proxiedLookup(t, srv, "PROXY UNKNOWN\r\n"))

	untrusted := startServer(t, withProxy("10.0.0.0/8"))
	require.EqualValues(t, -1, proxiedLookup(t, untrusted, "PROXY TCP4 192.0.2.7 127.0.0.1 40000 9876\r\n"),
		"an untrusted source may not claim a listed address")
	require.Equal(t, remoting.NoPermission, proxiedLookup(t, untrusted, ""))
}
