package namesrv

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/metrics/metricstest"
	"github.com/rmqgo/nameserver/remoting"
)

// holdingPeer is a remoting server whose lookups wait for release; got
// receives each lookup it holds.
func holdingPeer(t *testing.T) (addr string, got chan *remoting.Command, release chan struct{}) {
	got, release = make(chan *remoting.Command, 16), make(chan struct{})
	rs := remoting.NewServer(remoting.ServerConfig{Logger: testLogger(t)})
	rs.Register(remoting.GetRouteinfoByTopic, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		got <- req
		<-release
		return remoting.NewResponse(req, remoting.TopicNotExist, "held"), nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = rs.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = rs.Shutdown(ctx)
	})
	return ln.Addr().String(), got, release
}

// withWarmupTimeouts sets the per-peer and per-lookup forward bounds.
func withWarmupTimeouts(peer, lookup time.Duration) Option {
	return func(o *options) { o.warmupTimeouts = [2]time.Duration{peer, lookup} }
}

// TestWarmupForwardDoesNotHoldConnection: while one lookup waits for a
// peer (bounds raised to a minute, so it waits until released), later
// requests of the same connection are answered; the held lookup carries
// the marker and, the peer answering 17, is answered 17. The forward is
// counted in the metrics.
func TestWarmupForwardDoesNotHoldConnection(t *testing.T) {
	addr, got, release := holdingPeer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	warm := startServer(t, func(c *config.NamesrvConfig) {
		c.MetricsExporterType, c.MetricsPromExporterPort = "PROM", 5557
		c.WarmupForwardPeers, c.WarmupForwardSeconds = addr, 600
	}, WithMetricsListener(ln), withWarmupTimeouts(time.Minute, time.Minute))
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before the servers' shutdowns, should the test fail
	c := dial(t, warm)
	register(t, warm, "w")
	held := make(chan *remoting.Command, 1)
	go func() {
		resp, _ := c.Invoke(context.Background(), lookupReq("elsewhere", remoting.CurrentVersion))
		held <- resp
	}()
	fwd := <-got
	require.Equal(t, "true", fwd.ExtFields[forwardedMarker])
	require.Equal(t, "elsewhere", fwd.ExtFields["topic"])
	require.Equal(t, remoting.Success, invoke(t, c, lookupReq("w-topic-000000", remoting.CurrentVersion)).Code)
	require.Equal(t, remoting.Success, invoke(t, c, remoting.NewRequest(remoting.GetNamesrvConfig, nil, nil)).Code)
	require.Empty(t, held, "answered before the peer was released")
	free()
	require.Equal(t, remoting.TopicNotExist, (<-held).Code)
	fs := metricstest.Scrape(t, warm.MetricsAddr().String())
	require.EqualValues(t, 1, fs.Sum("rocketmq_namesrv_warmup_forwards_total"))
	require.EqualValues(t, 0, fs.Sum("rocketmq_namesrv_warmup_forwards_answered_total"))
	require.EqualValues(t, 1, fs.Sum("rocketmq_namesrv_warmup_forwards_failed_total"))
}

// BenchmarkLookupOverConn is GET_ROUTEINFO_BY_TOPIC of a known topic over
// one loopback connection, 8 requests pipelined: the lookup handler on the
// read loop (plain) and on a goroutine per request (warming, RegisterAsync).
func BenchmarkLookupOverConn(b *testing.B) {
	for _, bc := range []struct {
		name  string
		peers string
	}{{"plain", ""}, {"warming", "127.0.0.1:1"}} {
		b.Run(bc.name, func(b *testing.B) {
			srv := startServer(b, func(c *config.NamesrvConfig) {
				c.WarmupForwardPeers, c.WarmupForwardSeconds = bc.peers, 600
			})
			c := dial(b, srv)
			invoke(b, c, registerRequest(b, "p", "127.0.0.1:10911", 2))
			req := lookupReq("p-topic-000000", remoting.CurrentVersion)
			b.SetParallelism(8)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := c.Invoke(context.Background(), req)
					if err != nil || resp.Code != remoting.Success {
						b.Fatal(err, resp)
					}
				}
			})
		})
	}
}
