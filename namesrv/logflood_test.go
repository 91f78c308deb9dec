package namesrv

import (
	"fmt"
	"net"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/lograte/logratetest"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/tlsconf"
)

// strangerRuns is how many times TestAttackStrangerLogLinesAreBounded
// drives each path.
const strangerRuns = 500

// TestAttackStrangerLogLinesAreBounded: every log line a
// stranger can cause at will, on the remoting port (TLS sniff, handshake,
// PROXY header, frames, connection limit, idle and reset connections,
// ACL, each request code with garbage fields, brokers registered and
// unregistered) and on the metrics port, goes through the rate limiter:
// each path driven strangerRuns times, no message is written more than
// lograte.Burst times per second of the run. It prints the lines per path
// and per message.
func TestAttackStrangerLogLinesAreBounded(t *testing.T) {
	logger, lines := logratetest.Logger("namesrv")
	enf := enforcingServer(t, logger.Named("enforcing"))
	guarded := guardedServer(t, logger.Named("guarded"))
	open := startLogged(t, logger.Named("open"), func(c *config.NamesrvConfig) { c.ServerChannelMaxIdleTimeSeconds = 1 })
	logratetest.Drive(t, lines, strangerRuns, []logratetest.Path{
		{Name: "plaintext to enforcing tls", Run: conns(enf.Addr(), []byte{0, 0, 0, 1})},
		{Name: "tls handshake of garbage", Run: conns(enf.Addr(), []byte{0x16, 3, 1, 0, 5, 'h', 'e', 'l', 'l', 'o'})},
		{Name: "tls handshake refused by the client", Run: func(t *testing.T, n int) {
			logratetest.BadHandshakes(t, enf.Addr().String(), n)
		}},
		{Name: "plaintext to the enforcing metrics port", Run: conns(enf.MetricsAddr(), []byte("GET /metrics HTTP/1.1\r\n\r\n"))},
		{Name: "garbage frame", Run: conns(guarded.Addr(), []byte{0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4})},
		{Name: "oversize frame", Run: conns(guarded.Addr(), []byte{0x7f, 0xff, 0xff, 0xff})},
		{Name: "untrusted proxy header", Run: conns(guarded.Addr(), []byte("PROXY TCP4 192.0.2.7 127.0.0.1 1 2\r\n"))},
		{Name: "garbage on the metrics port", Run: conns(guarded.MetricsAddr(), []byte("\x00\xffGARBAGE\r\n\r\n"))},
		{Name: "unsigned request (acl on)", Run: requests(guarded, func(int) *remoting.Command {
			return remoting.NewRequest(remoting.PutKVConfig, map[string]string{"namespace": "n", "key": "k", "value": "v"}, nil)
		})},
		{Name: "badly signed request (acl on)", Run: requests(guarded, func(i int) *remoting.Command {
			req := remoting.NewRequest(remoting.PutKVConfig, map[string]string{"namespace": "n", "key": "k", "value": "v"}, nil)
			acl.Sign(req, fmt.Sprintf("stranger%06d", i), "guessed", "")
			return req
		})},
		{Name: "connections over the limit", Run: overLimit(guarded)},
		{Name: "connection reset mid-frame", Run: func(t *testing.T, n int) {
			logratetest.Resets(t, open.Addr().String(), n, []byte{0, 0, 0, 100, 0, 0})
		}},
		{Name: "idle connections", Run: func(t *testing.T, n int) { logratetest.Idle(t, open.Addr().String(), n) }},
		{Name: "each request code with garbage fields", Run: garbageRequests(open)},
		{Name: "brokers registered and unregistered", Run: fakeBrokers(open)},
		{Name: "broker registering one topic (refused)", Run: requests(open, func(i int) *remoting.Command {
			return registerRequest(t, fmt.Sprintf("one%d", i), fmt.Sprintf("127.0.0.1:%d", 30000+i), 1)
		})},
	})
}

// enforcingServer serves TLS only, on the remoting and the metrics port.
func enforcingServer(t *testing.T, logger hclog.Logger) *Server {
	f := newTLSFixture(t, config.TLSModeEnforcing)
	m, err := tlsconf.New(f.cfg, logger)
	require.NoError(t, err)
	t.Cleanup(m.Close)
	return startLogged(t, logger, withMetrics, WithTLS(m), WithMetricsListener(listen(t)))
}

// guardedServer has ACL on, PROXY headers trusted from 10.0.0.0/8 only
// and room for 20 connections.
func guardedServer(t *testing.T, logger hclog.Logger) *Server {
	path := writeACLFile(t, "accounts: [{accessKey: nsAdmin01, secretKey: nsAdminSecret, admin: true}]\n")
	return startLogged(t, logger, func(c *config.NamesrvConfig) {
		withMetrics(c)
		c.AclEnable, c.AclConfigPath = true, path
		c.EnableProxyProtocol, c.ProxyProtocolTrustedSources = true, "10.0.0.0/8"
		c.ServerMaxConnections = 20
	}, WithMetricsListener(listen(t)))
}

func withMetrics(c *config.NamesrvConfig) {
	c.MetricsExporterType, c.MetricsPromExporterPort = "PROM", 5557
}

func listen(t *testing.T) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return ln
}

func conns(addr net.Addr, first []byte) func(t *testing.T, n int) {
	return func(t *testing.T, n int) { logratetest.Conns(t, addr.String(), n, first) }
}

// requests sends n requests made by mk on one connection; each is answered.
func requests(srv *Server, mk func(i int) *remoting.Command) func(t *testing.T, n int) {
	return func(t *testing.T, n int) {
		c := dial(t, srv)
		for i := range n {
			invoke(t, c, mk(i))
		}
		_ = c.Close()
	}
}

// overLimit holds the server's 20 connections open and opens n more.
func overLimit(srv *Server) func(t *testing.T, n int) {
	return func(t *testing.T, n int) {
		held := make([]*remoting.Client, 0, 20)
		for range 20 {
			held = append(held, dial(t, srv))
		}
		defer func() {
			for _, c := range held {
				_ = c.Close()
			}
		}()
		logratetest.Conns(t, srv.Addr().String(), n, nil)
	}
}

// garbageRequests sends n/10 requests of each NameServer code and of
// unknown codes, with fields and a body that are not what the code reads.
func garbageRequests(srv *Server) func(t *testing.T, n int) {
	codes := []int32{remoting.PutKVConfig, remoting.GetKVConfig, remoting.DeleteKVConfig, remoting.GetKVListByNamespace,
		remoting.RegisterBroker, remoting.UnregisterBroker, remoting.BrokerHeartbeat, remoting.QueryDataVersion,
		remoting.GetBrokerClusterInfo, remoting.WipeWritePermOfBroker, remoting.AddWritePermOfBroker,
		remoting.GetAllTopicListFromNameserver, remoting.DeleteTopicInNamesrv, remoting.RegisterTopicInNamesrv,
		remoting.GetTopicsByCluster, remoting.GetSystemTopicListFromNs, remoting.GetUnitTopicList,
		remoting.GetHasUnitSubTopicList, remoting.GetHasUnitSubUnunitTopicList, remoting.GetBrokerMemberGroup,
		remoting.UpdateNamesrvConfig, remoting.GetNamesrvConfig, remoting.GetRouteinfoByTopic, 0, 9999, -1}
	garbage := map[string]string{"brokerName": "b\xff", "clusterName": "", "brokerAddr": "not-an-address",
		"brokerId": "x", "topic": "", "namespace": "", "key": "", "haServerAddr": "::", "bodyCrc32": "1",
		"compressed": "maybe", "topicName": "t"}
	return func(t *testing.T, n int) {
		c := dial(t, srv)
		defer c.Close()
		for i := range max(n/10, 1) {
			for _, code := range codes {
				ext := make(map[string]string, len(garbage))
				for k, v := range garbage {
					ext[k] = v
				}
				invoke(t, c, remoting.NewRequest(code, ext, []byte(fmt.Sprintf("{not json %d\x00=\n", i))))
			}
		}
	}
}

// fakeBrokers registers n brokers of a stranger's and unregisters them.
func fakeBrokers(srv *Server) func(t *testing.T, n int) {
	return func(t *testing.T, n int) {
		c := dial(t, srv)
		defer c.Close()
		for i := range n {
			name, addr := fmt.Sprintf("fake%d", i), fmt.Sprintf("127.0.0.1:%d", 20000+i)
			resp := invoke(t, c, registerRequest(t, name, addr, 2))
			require.Equal(t, remoting.Success, resp.Code, resp.Remark)
			resp = invoke(t, c, remoting.NewRequest(remoting.UnregisterBroker,
				map[string]string{"brokerName": name, "brokerAddr": addr, "clusterName": "C", "brokerId": "0"}, nil))
			require.Equal(t, remoting.Success, resp.Code, resp.Remark)
		}
	}
}
