package namesrv

import (
	"context"
	"testing"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
)

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
