package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// waitTimeout bounds every poll and every request of these tests.
const waitTimeout = 10 * time.Second

// ctxT returns a context bounded by waitTimeout and cancelled at cleanup.
func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// newBroker starts a fake broker registered nowhere yet, closed at cleanup.
func newBroker(t testing.TB, cfg fakebroker.Config) *fakebroker.Broker {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t, "broker")
	}
	b, err := fakebroker.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// dialNS opens a raw remoting client to a NameServer, closed at cleanup.
func dialNS(t testing.TB, addr string) *remoting.Client {
	t.Helper()
	c, err := remoting.Dial(ctxT(t), addr, remoting.ClientOptions{Logger: testLogger(t, "client")})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// getRoute sends GET_ROUTEINFO_BY_TOPIC as a 5.x Java client and returns
// the response code and the decoded route (nil unless SUCCESS).
func getRoute(ctx context.Context, c *remoting.Client, topic string) (int32, *wire.TopicRouteData, error) {
	resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": topic}, nil))
	if err != nil {
		return 0, nil, err
	}
	if resp.Code != remoting.Success {
		return resp.Code, nil, nil
	}
	rd, err := wire.DecodeTopicRouteData(resp.Body)
	return resp.Code, rd, err
}

// routeHasBroker reports whether the route of topic lists b's address
// under b's id.
func routeHasBroker(ctx context.Context, c *remoting.Client, topic string, b *fakebroker.Broker) error {
	code, rd, err := getRoute(ctx, c, topic)
	if err != nil {
		return err
	}
	if code != remoting.Success {
		return fmt.Errorf("route of %s: code %d", topic, code)
	}
	for _, bd := range rd.BrokerDatas {
		if bd.BrokerName == b.BrokerName() && bd.BrokerAddrs[b.BrokerID()] == b.Addr() {
			return nil
		}
	}
	return fmt.Errorf("route of %s lacks %s/%d=%s: %+v", topic, b.BrokerName(), b.BrokerID(), b.Addr(), rd.BrokerDatas)
}

// routeGone reports whether topic has no route (TOPIC_NOT_EXIST).
func routeGone(ctx context.Context, c *remoting.Client, topic string) error {
	code, _, err := getRoute(ctx, c, topic)
	if err != nil {
		return err
	}
	if code != remoting.TopicNotExist {
		return fmt.Errorf("route of %s: code %d, want %d", topic, code, remoting.TopicNotExist)
	}
	return nil
}

// putKV stores a KV config entry over the wire.
func putKV(t testing.TB, c *remoting.Client, ns, key, value string) {
	t.Helper()
	ext := map[string]string{"namespace": ns, "key": key, "value": value}
	resp, err := c.Invoke(ctxT(t), remoting.NewRequest(remoting.PutKVConfig, ext, nil))
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
}

// getKV reads a KV config entry over the wire: the code and ext value.
func getKV(t testing.TB, c *remoting.Client, ns, key string) (int32, string) {
	t.Helper()
	ext := map[string]string{"namespace": ns, "key": key}
	resp, err := c.Invoke(ctxT(t), remoting.NewRequest(remoting.GetKVConfig, ext, nil))
	require.NoError(t, err)
	return resp.Code, resp.ExtFields["value"]
}
