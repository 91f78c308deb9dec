package namesrv

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/namesrv/route"
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// noKV is a KV store without entries.
type noKV struct{}

func (noKV) Get(string, string) (string, bool) { return "", false }

// cacheFixture is a route manager and a route processor whose body cache
// has the given budget, with broker b1 holding topics t0..t(n-1).
func cacheFixture(t testing.TB, budget int64, n int) (*route.Manager, *routeProcessor) {
	m := route.NewManager(route.Options{})
	t.Cleanup(m.Stop)
	rb := &wire.RegisterBody{TopicConfigs: map[string]wire.TopicConfig{}}
	for i := range n {
		name := fmt.Sprintf("t%d", i)
		rb.TopicConfigs[name] = wire.TopicConfig{TopicName: name, ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6}
	}
	_, err := m.RegisterBroker(wire.RegisterRequest{ClusterName: "c1", BrokerName: "b1", BrokerAddr: "a1:10911",
		HAServerAddr: "a1:10912", Body: rb})
	require.NoError(t, err)
	p := &routeProcessor{routes: m, kv: noKV{}, cfg: config.NewHolder(config.Default()), cache: route.NewBodyCache(budget)}
	return m, p
}

// lookup answers GET_ROUTEINFO_BY_TOPIC for topic with the given version
// and checks the body is the encoding of the published route.
func lookup(t *testing.T, m *route.Manager, p *routeProcessor, topic string, version int32) []byte {
	t.Helper()
	req := &remoting.Command{Code: remoting.GetRouteinfoByTopic, Version: version,
		ExtFields: map[string]string{"topic": topic}}
	resp, err := p.getRouteInfo(nil, req)
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code)
	f := wire.FastjsonDefault
	if version >= versionStandardJSON {
		f = wire.Standard
	}
	require.Equal(t, string(wire.AppendTopicRouteData(nil, m.Lookup(topic).Route, f)), string(resp.Body))
	require.Equal(t, len(resp.Body), cap(resp.Body), "bodies are exact-size copies")
	return resp.Body
}

func TestRouteCacheBudgetAccounting(t *testing.T) {
	m, p := cacheFixture(t, 0, 3)
	require.Zero(t, p.cache.Used())
	b0 := lookup(t, m, p, "t0", 0)
	require.Equal(t, int64(len(b0)), p.cache.Used())
	again := lookup(t, m, p, "t0", 0)
	require.Same(t, &b0[0], &again[0], "the second lookup is served from the cache")
	require.Equal(t, int64(len(b0)), p.cache.Used())
	std := lookup(t, m, p, "t0", versionStandardJSON)
	require.Same(t, m.Lookup("t0"), m.Lookup("t1"), "same broker, same queues: one shared snapshot")
	require.Same(t, &b0[0], &p.cache.Get(m.Lookup("t1"), route.BodyDefault)[0],
		"t1's first lookup finds the body t0's encoded")
	b1 := lookup(t, m, p, "t1", 0)
	require.Same(t, &b0[0], &b1[0], "an equal body is held once")
	require.Equal(t, int64(len(b0)+len(std)), p.cache.Used())

	require.Equal(t, 3, m.WipeWritePerm("b1")) // republishes every topic
	require.Zero(t, p.cache.Used(), "retiring the snapshots uncounts their bodies")
	b0 = lookup(t, m, p, "t0", 0)
	require.Equal(t, int64(len(b0)), p.cache.Used())
	m.DeleteTopic("t0", "")
	require.Equal(t, int64(len(b0)), p.cache.Used(), "t1 and t2 still publish the snapshot t0 shared")
	m.DeleteTopic("t1", "")
	m.DeleteTopic("t2", "")
	require.Zero(t, p.cache.Used(), "a withdrawn snapshot is retired too")
}

func TestRouteCacheOverBudgetEncodesPerRequest(t *testing.T) {
	m, p := cacheFixture(t, 0, 2)
	b0 := lookup(t, m, p, "t0", 0)
	p.cache = route.NewBodyCache(int64(len(b0)) - 1) // no room for a body
	m.WipeWritePerm("b1")
	b0 = lookup(t, m, p, "t0", 0)
	again := lookup(t, m, p, "t0", 0)
	require.NotSame(t, &b0[0], &again[0], "over budget, each lookup encodes")
	require.Zero(t, p.cache.Used())
	require.Nil(t, p.cache.Get(m.Lookup("t0"), route.BodyDefault))

	p.cache = route.NewBodyCache(-1)
	m.AddWritePerm("b1")
	lookup(t, m, p, "t0", 0)
	require.Zero(t, p.cache.Used(), "a negative budget caches nothing")
}

func TestRouteCacheCounterUnderConcurrentRepublish(t *testing.T) {
	m, p := cacheFixture(t, 0, 50)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				topic := fmt.Sprintf("t%d", (i*7+g)%50)
				resp, err := p.getRouteInfo(nil, &remoting.Command{Code: remoting.GetRouteinfoByTopic,
					Version: int32(i % 2 * versionStandardJSON), ExtFields: map[string]string{"topic": topic}})
				require.NoError(t, err)
				require.NotEmpty(t, resp.Body)
			}
		})
	}
	for i := range 50 {
		if i%2 == 0 {
			m.WipeWritePerm("b1")
		} else {
			m.AddWritePerm("b1")
		}
	}
	wg.Wait()
	distinct := map[string]bool{}
	for i := range 50 {
		s := m.Lookup(fmt.Sprintf("t%d", i))
		for slot := range route.BodySlots {
			if b := p.cache.Get(s, slot); b != nil {
				distinct[string(b)] = true
			}
		}
	}
	var held int64
	for b := range distinct {
		held += int64(len(b))
	}
	require.Equal(t, held, p.cache.Used(), "the counter is the distinct bodies the published snapshots hold")
	m.AddWritePerm("b1")
	m.WipeWritePerm("b1")
	require.Zero(t, p.cache.Used())
}

// oneKV holds one KV entry.
type oneKV struct{ ns, key, value string }

func (k oneKV) Get(ns, key string) (string, bool) {
	if ns == k.ns && key == k.key {
		return k.value, true
	}
	return "", false
}

// TestRouteOrderConfOfRequestedTopic: topics with equal routes share one
// snapshot, which names no topic; the order config is the requested
// topic's.
func TestRouteOrderConfOfRequestedTopic(t *testing.T) {
	m, p := cacheFixture(t, 0, 2)
	require.Same(t, m.Lookup("t0"), m.Lookup("t1"))
	cfg := *config.Default()
	cfg.OrderMessageEnable = true
	p.cfg = config.NewHolder(&cfg)
	p.kv = oneKV{orderTopicNamespace, "t1", "b1:4"}
	for _, tc := range []struct{ topic, conf string }{{"t1", "b1:4"}, {"t0", ""}, {"t1", "b1:4"}} {
		req := &remoting.Command{Code: remoting.GetRouteinfoByTopic, ExtFields: map[string]string{"topic": tc.topic}}
		resp, err := p.getRouteInfo(nil, req)
		require.NoError(t, err)
		want := *m.Lookup(tc.topic).Route
		want.OrderTopicConf = tc.conf
		require.Equal(t, string(wire.AppendTopicRouteData(nil, &want, wire.FastjsonDefault)), string(resp.Body), tc.topic)
	}
}
