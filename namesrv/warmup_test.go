package namesrv

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/remoting"
)

// startWarming starts a NameServer forwarding to peers for seconds.
func startWarming(t *testing.T, seconds int, peers ...string) *Server {
	return startServer(t, func(c *config.NamesrvConfig) {
		c.WarmupForwardPeers = joinPeers(peers)
		c.WarmupForwardSeconds = seconds
	})
}

func joinPeers(peers []string) string {
	s := ""
	for _, p := range peers {
		s += p + ";"
	}
	return s
}

// withTopic starts a plain NameServer with broker name registered (topics
// name-topic-000000 and name-topic-000001).
func withTopic(t *testing.T, name string) *Server {
	srv := startServer(t, nil)
	register(t, srv, name)
	return srv
}

func register(t *testing.T, srv *Server, name string) {
	resp := invoke(t, dial(t, srv), registerRequest(t, name, "127.0.0.1:10911", 2))
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
}

// lookupReq is GET_ROUTEINFO_BY_TOPIC as a client of version sends it.
func lookupReq(topic string, version int32) *remoting.Command {
	req := remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": topic}, nil)
	req.Version = version
	return req
}

// TestWarmupForwardsUnknownTopic: a warming node answers a topic only its
// peer knows with the peer's answer, byte for byte in both JSON flavours;
// a topic it knows itself is answered locally, one nobody knows is 17.
func TestWarmupForwardsUnknownTopic(t *testing.T) {
	peer := withTopic(t, "p")
	warm := startWarming(t, 600, peer.Addr().String())
	register(t, warm, "w")
	pc, wc := dial(t, peer), dial(t, warm)
	for _, version := range []int32{remoting.CurrentVersion, 100} {
		want := invoke(t, pc, lookupReq("p-topic-000001", version))
		got := invoke(t, wc, lookupReq("p-topic-000001", version))
		require.Equal(t, remoting.Success, got.Code)
		require.Equal(t, want.Body, got.Body, "the peer's body, not re-encoded")
		require.Equal(t, want.Remark, got.Remark)
		require.Equal(t, want.ExtFields, got.ExtFields)
		require.True(t, got.IsResponse())
	}
	require.EqualValues(t, 2, warm.warm.answered.Load())

	local := invoke(t, wc, lookupReq("w-topic-000000", remoting.CurrentVersion))
	require.Equal(t, remoting.Success, local.Code)
	require.EqualValues(t, 2, warm.warm.forwarded.Load(), "a known topic is answered locally")

	none := invoke(t, wc, lookupReq("nobody", remoting.CurrentVersion))
	require.Equal(t, remoting.TopicNotExist, none.Code)
	require.Contains(t, none.Remark, "nobody")
	require.EqualValues(t, 1, warm.warm.failed.Load())
}

// TestWarmupWindowEnds: after warmupForwardSeconds lookups are no longer
// forwarded.
func TestWarmupWindowEnds(t *testing.T) {
	peer := withTopic(t, "p")
	warm := startWarming(t, 1, peer.Addr().String())
	wc := dial(t, warm)
	poll.Until(t, `invoke(t, wc, lookupReq("p-topic-000000", remoting.CurrentVersion)).Code == remoting.TopicNotExist`, 10*time.Second, 50*time.Millisecond, poll.True(func() bool {
		return invoke(t, wc, lookupReq("p-topic-000000", remoting.CurrentVersion)).Code == remoting.TopicNotExist
	}))
	n := warm.warm.forwarded.Load()
	require.Equal(t, remoting.TopicNotExist, invoke(t, wc, lookupReq("p-topic-000000", remoting.CurrentVersion)).Code)
	require.Equal(t, n, warm.warm.forwarded.Load(), "not forwarded after the window")
}

// TestWarmupForwardedNotForwardedAgain: two warming nodes naming each other
// (restarted together) answer 17 for a topic neither knows, each
// forwarding once and never a forwarded request.
func TestWarmupForwardedNotForwardedAgain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addrB := ln.Addr().String()
	require.NoError(t, ln.Close())
	a := startWarming(t, 600, addrB)
	b := startServer(t, func(c *config.NamesrvConfig) {
		_, port, _ := net.SplitHostPort(addrB)
		c.ListenPort, err = strconv.Atoi(port)
		require.NoError(t, err)
		c.WarmupForwardPeers = a.Addr().String()
		c.WarmupForwardSeconds = 600
	})
	require.Equal(t, addrB, b.Addr().String())
	for _, srv := range []*Server{a, b} {
		resp := invoke(t, dial(t, srv), lookupReq("nobody", remoting.CurrentVersion))
		require.Equal(t, remoting.TopicNotExist, resp.Code)
	}
	for _, srv := range []*Server{a, b} {
		require.EqualValues(t, 1, srv.warm.forwarded.Load(), "its own lookup only")
		require.EqualValues(t, 1, srv.warm.failed.Load())
	}
}

// TestWarmupPeersDown: with one peer refusing connections and one that
// accepts but never answers, a lookup is answered 17 within a Java
// client's 3 s timeout (ClientConfig.mqClientApiTimeout).
func TestWarmupPeersDown(t *testing.T) {
	refused, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.NoError(t, refused.Close())
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = silent.Close() })
	go acceptSilently(silent)
	warm := startWarming(t, 600, refused.Addr().String(), silent.Addr().String())
	c := dial(t, warm)
	for range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		resp, err := c.Invoke(ctx, lookupReq("T", remoting.CurrentVersion))
		cancel()
		require.NoError(t, err)
		require.Equal(t, remoting.TopicNotExist, resp.Code)
	}
	require.EqualValues(t, 3, warm.warm.failed.Load())
}

// acceptSilently accepts connections and never reads or answers.
func acceptSilently(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
	}
}

// TestWarmupOwnEntryIgnored: a list naming only this node forwards nothing.
func TestWarmupOwnEntryIgnored(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	srv := startServer(t, func(c *config.NamesrvConfig) {
		_, port, _ := net.SplitHostPort(addr)
		c.ListenPort, err = strconv.Atoi(port)
		require.NoError(t, err)
		c.WarmupForwardPeers, c.WarmupForwardSeconds = addr+";localhost:"+port, 600
	})
	require.Equal(t, remoting.TopicNotExist, invoke(t, dial(t, srv), lookupReq("T", remoting.CurrentVersion)).Code)
	require.Empty(t, srv.warm.peers)
	require.Zero(t, srv.warm.forwarded.Load())
}
