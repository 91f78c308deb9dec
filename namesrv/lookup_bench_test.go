package namesrv

import (
	"context"
	"sync"
	"testing"

	"github.com/rmqgo/nameserver/remoting"
)

// BenchmarkLookupSerialConns is GET_ROUTEINFO_BY_TOPIC of a known topic
// over 16 loopback connections with one request outstanding on each (as
// loadgen's scale rows and most clients do), so the server's writer has
// nothing to batch: the per-request cost of reading, dispatching and
// writing one frame. cpu-µs/op is client and server together.
func BenchmarkLookupSerialConns(b *testing.B) {
	const conns = 16
	srv := startServer(b, nil)
	clients := make([]*remoting.Client, conns)
	for i := range clients {
		clients[i] = dial(b, srv)
	}
	invoke(b, clients[0], registerRequest(b, "p", "127.0.0.1:10911", 2))
	req := lookupReq("p-topic-000000", remoting.CurrentVersion)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	var wg sync.WaitGroup
	per := b.N/conns + 1
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				resp, err := c.Invoke(context.Background(), req)
				if err != nil || resp.Code != remoting.Success {
					b.Error(err, resp)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(per*conns), "cpu-µs/op")
}
