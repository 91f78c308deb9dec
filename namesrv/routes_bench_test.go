package namesrv

import (
	"testing"

	"github.com/rmqgo/nameserver/remoting"
)

// BenchmarkGetRouteInfoCached is the hot path of GET_ROUTEINFO_BY_TOPIC:
// a lookup answered from the body cached in the topic's snapshot.
func BenchmarkGetRouteInfoCached(b *testing.B) {
	_, p := cacheFixture(b, 0, 2)
	req := &remoting.Command{Code: remoting.GetRouteinfoByTopic, ExtFields: map[string]string{"topic": "t0"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.getRouteInfo(nil, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetRouteInfoRepublished encodes and caches a fresh body on every
// lookup: the snapshot is replaced (and its cached body retired) first.
func BenchmarkGetRouteInfoRepublished(b *testing.B) {
	m, p := cacheFixture(b, 0, 2)
	req := &remoting.Command{Code: remoting.GetRouteinfoByTopic, ExtFields: map[string]string{"topic": "t0"}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			m.WipeWritePerm("b1")
		} else {
			m.AddWritePerm("b1")
		}
		if _, err := p.getRouteInfo(nil, req); err != nil {
			b.Fatal(err)
		}
	}
}
