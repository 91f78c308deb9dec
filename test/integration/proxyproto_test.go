package integration

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// fakeHAProxy accepts connections and forwards each to target after a
// PROXY v2 header (PROXY command, TCP over IPv4) naming a client address
// 203.0.113.9 with a port counting up from 40001, as HAProxy's
// "send-proxy-v2" does.
func fakeHAProxy(t *testing.T, target string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	var port atomic.Uint32
	port.Store(40000)
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			go forwardWithHeader(in, target, uint16(port.Add(1)))
		}
	}()
	return ln.Addr().String()
}

func forwardWithHeader(in net.Conn, target string, srcPort uint16) {
	defer in.Close()
	out, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer out.Close()
	hdr := []byte("\r\n\r\n\x00\r\nQUIT\n\x21\x11\x00\x0c")
	src, dst := netip.MustParseAddr("203.0.113.9").As4(), netip.MustParseAddr("127.0.0.1").As4()
	hdr = append(append(hdr, src[:]...), dst[:]...)
	hdr = binary.BigEndian.AppendUint16(hdr, srcPort)
	hdr = binary.BigEndian.AppendUint16(hdr, 9876)
	if _, err := out.Write(hdr); err != nil {
		return
	}
	go func() { _, _ = io.Copy(out, in); _ = out.Close() }()
	_, _ = io.Copy(in, out)
}

// startProxied starts a NameServer with enableProxyProtocol trusting
// trusted, logging at debug into the returned buffer too.
func startProxied(t *testing.T, trusted string) (string, *testlog.Lines) {
	logger, logs := testlog.Capture(t, "namesrv", hclog.Debug)
	srv := namesrvtest.Start(t, namesrvtest.WithLogger(logger), namesrvtest.WithConfig(func(c *config.NamesrvConfig) {
		c.EnableProxyProtocol = true
		c.ProxyProtocolTrustedSources = trusted
	}))
	return srv.Addr().String(), logs
}

// TestProxyProtocolRevealsClientBehindLoadBalancer: a broker (Java
// frames) registers and rocketmq-client-go looks routes up through a load
// balancer sending PROXY v2. The connections are logged under the client
// address the header reveals; routes and clusterList keep the address the
// broker registered (Java's RouteInfoManager takes brokerAddr from the
// request, never from the channel).
func TestProxyProtocolRevealsClientBehindLoadBalancer(t *testing.T) {
	ns, logs := startProxied(t, "127.0.0.1")
	lb := fakeHAProxy(t, ns)
	b := registeredBroker(t, lb, fakebroker.Topic("ProxiedTopic", 2))

	mqs, err := newAdmin(t, lb).FetchPublishMessageQueues(ctxT(t), "ProxiedTopic")
	require.NoError(t, err)
	require.Len(t, mqs, 2)
	poll.Until(t, "route through a direct connection", waitTimeout, 10*time.Millisecond, func() error { return routeHasBroker(ctxT(t), dialNS(t, ns), "ProxiedTopic", b) })
	require.Contains(t, logs.String(), "remote=203.0.113.9:4000")
	require.NotContains(t, logs.String(), "remote=203.0.113.9:9876")
}

// TestProxyProtocolSpoofedHeaderRefused: from a source outside
// proxyProtocolTrustedSources a header closes the connection; the same
// client without one is served (rocketmq-client-go directly).
func TestProxyProtocolSpoofedHeaderRefused(t *testing.T) {
	ns, logs := startProxied(t, "10.0.0.0/8")
	nc, err := net.Dial("tcp", ns)
	require.NoError(t, err)
	defer nc.Close()
	_, err = nc.Write([]byte("PROXY TCP4 10.1.1.1 10.0.0.1 5555 9876\r\n\x00\x00\x00\x10"))
	require.NoError(t, err)
	_ = nc.SetReadDeadline(time.Now().Add(waitTimeout))
	_, err = nc.Read(make([]byte, 1))
	require.Error(t, err)
	var ne net.Error
	require.False(t, isTimeout(err, &ne), "closed, not left hanging: %v", err)
	require.True(t, strings.Contains(logs.String(), "untrusted source"), "the spoof is logged")

	registeredBroker(t, ns, fakebroker.Topic("DirectTopic", 1))
	mqs, err := newAdmin(t, ns).FetchPublishMessageQueues(ctxT(t), "DirectTopic")
	require.NoError(t, err)
	require.Len(t, mqs, 1)
}

func isTimeout(err error, ne *net.Error) bool { return errors.As(err, ne) && (*ne).Timeout() }
