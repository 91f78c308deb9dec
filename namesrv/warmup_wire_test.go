package namesrv

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/tlsconf"
)

// TestWarmupJavaClientFrame: a lookup as a Java 5.3 client sends it
// (MQClientAPIImpl.getTopicRouteInfoFromNameServer: GetRouteInfoRequestHeader's
// topic, RemotingCommand in fastjson's alphabetical order) gets the peer's
// body with its own opaque and the response flag.
func TestWarmupJavaClientFrame(t *testing.T) {
	peer := withTopic(t, "p")
	warm := startWarming(t, 600, peer.Addr().String())
	want := invoke(t, dial(t, peer), lookupReq("p-topic-000000", 479))
	conn, err := net.Dial("tcp", warm.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	hdr := javaHeader(int(remoting.GetRouteinfoByTopic), 0, 4242, `"topic":"p-topic-000000"`)
	_, err = conn.Write(javaFrame(hdr, nil))
	require.NoError(t, err)
	got := readReply(t, conn)
	require.EqualValues(t, remoting.Success, got.Code)
	require.EqualValues(t, 4242, got.Opaque)
	require.Equal(t, remoting.FlagResponse, got.Flag)
	require.Equal(t, want.Body, got.Body)
}

// TestWarmupForwardsOverTLS: with tls.enable=true peers are dialled with
// TLS (an enforcing peer answers); without, the enforcing peer closes the
// connection and the answer is 17.
func TestWarmupForwardsOverTLS(t *testing.T) {
	f := newTLSFixture(t, config.TLSModeEnforcing)
	peer := startServer(t, func(*config.NamesrvConfig) {}, WithTLS(f.manager(t)))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pc, err := remoting.Dial(ctx, peer.Addr().String(), remoting.ClientOptions{TLS: f.client()})
	require.NoError(t, err)
	defer pc.Close()
	require.Equal(t, remoting.Success, invoke(t, pc, registerRequest(t, "p", "127.0.0.1:10911", 2)).Code)

	cc := config.DefaultTLS()
	cc.Enable = true
	m, err := tlsconf.New(cc, testLogger(t))
	require.NoError(t, err)
	t.Cleanup(m.Close)
	for _, opts := range [][]Option{{WithTLS(m)}, nil} {
		warm := startServer(t, func(c *config.NamesrvConfig) {
			c.WarmupForwardPeers, c.WarmupForwardSeconds = peer.Addr().String(), 600
		}, opts...)
		want := map[bool]int32{true: remoting.Success, false: remoting.TopicNotExist}[opts != nil]
		require.Equal(t, want, invoke(t, dial(t, warm), lookupReq("p-topic-000000", 479)).Code, "tls %v", opts != nil)
	}
}

// TestWarmupShutdownClosesPeers: the peer connection opened by a forward
// is closed at shutdown, and no new one is dialled.
func TestWarmupShutdownClosesPeers(t *testing.T) {
	peer := withTopic(t, "p")
	warm := startWarming(t, 600, peer.Addr().String())
	require.Equal(t, remoting.Success, invoke(t, dial(t, warm), lookupReq("p-topic-000000", 479)).Code)
	p := warm.warm.peers[0]
	p.mu.Lock()
	c := p.c
	p.mu.Unlock()
	require.NotNil(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, warm.Shutdown(ctx))
	<-c.Done()
	_, err := p.client(ctx)
	require.ErrorIs(t, err, ErrWarmupClosed)
}

const warmupACL = "accounts: [{accessKey: nsAdmin01, secretKey: nsAdminSecret, admin: true}]\n"

// aclPeer starts a NameServer with aclEnable and anonymousRead, with broker
// "p" registered by a signed request.
func aclPeer(t *testing.T, anonymousRead bool) *Server {
	path := writeACLFile(t, warmupACL)
	srv := startServer(t, func(c *config.NamesrvConfig) {
		c.AclEnable, c.AclConfigPath, c.AclAnonymousRead = true, path, anonymousRead
	})
	req := registerRequest(t, "p", "127.0.0.1:10911", 2)
	acl.Sign(req, "nsAdmin01", "nsAdminSecret", "")
	require.Equal(t, remoting.Success, invoke(t, dial(t, srv), req).Code)
	return srv
}

// TestWarmupACLPeers: a signed lookup is forwarded without its signature
// (the marker would break it), as an anonymous read: answered by a peer
// with aclAnonymousRead=true, refused (16) by one with false, and then
// answered 17 as if there were no peer.
func TestWarmupACLPeers(t *testing.T) {
	for _, anonymous := range []bool{true, false} {
		peer := aclPeer(t, anonymous)
		warm := startServer(t, func(c *config.NamesrvConfig) {
			c.AclEnable, c.AclConfigPath = true, writeACLFile(t, warmupACL)
			c.WarmupForwardPeers, c.WarmupForwardSeconds = peer.Addr().String(), 600
		})
		req := lookupReq("p-topic-000000", remoting.CurrentVersion)
		acl.Sign(req, "nsAdmin01", "nsAdminSecret", "")
		want := map[bool]int32{true: remoting.Success, false: remoting.TopicNotExist}[anonymous]
		require.Equal(t, want, invoke(t, dial(t, warm), req).Code, "aclAnonymousRead=%v", anonymous)
	}
}

func TestWarmupIsSelf(t *testing.T) {
	wild := &net.TCPAddr{IP: net.IPv4zero, Port: 9876}
	bound := &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 9876}
	for _, tc := range []struct {
		addr   string
		listen net.Addr
		self   bool
	}{
		{"127.0.0.1:9876", wild, true},
		{"localhost:9876", wild, true},
		{"127.0.0.1:9877", wild, false},
		{"10.9.9.9:9876", wild, false},
		{"ns-2.example:9876", wild, false},
		{"10.1.2.3:9876", bound, true},
		{"127.0.0.1:9876", bound, false},
		{"localhost:9876", bound, false},
		{"localhost:9876", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9876}, true},
	} {
		require.Equal(t, tc.self, isSelf(tc.addr, tc.listen), "%s on %s", tc.addr, tc.listen)
	}
}

// TestWarmupForwardCopy: the forwarded request keeps what decides the
// answer (version, topic, zone fields), drops the signature, carries the
// marker, and leaves the client's request alone.
func TestWarmupForwardCopy(t *testing.T) {
	req := lookupReq("T", 100)
	req.ExtFields["__ZONE_MODE"] = "true"
	acl.Sign(req, "ak", "sk", "tok")
	fwd := forwardCopy(req)
	require.Equal(t, map[string]string{"topic": "T", "__ZONE_MODE": "true", forwardedMarker: "true"}, fwd.ExtFields)
	require.EqualValues(t, 100, fwd.Version)
	require.Contains(t, req.ExtFields, acl.FieldSignature)
	require.NotContains(t, req.ExtFields, forwardedMarker)
}
