package integration

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// TestBrokerConnectionCloseRemovesRoute: a registered broker's route goes
// away when its connection closes.
func TestBrokerConnectionCloseRemovesRoute(t *testing.T) {
	addr := namesrvtest.Start(t).Addr().String()
	b := registeredBroker(t, addr, fakebroker.Topic("CloseTopic", 4))
	c := dialNS(t, addr)
	require.NoError(t, routeHasBroker(ctxT(t), c, "CloseTopic", b))

	require.NoError(t, b.Disconnect(addr))
	poll.Until(t, "route gone after the broker's connection closed", waitTimeout, 10*time.Millisecond, func() error {
		return routeGone(ctxT(t), c, "CloseTopic")
	})
}

// TestBrokerUnregisterRemovesRoute: UNREGISTER_BROKER removes the route
// (asynchronously) while the connection stays open.
func TestBrokerUnregisterRemovesRoute(t *testing.T) {
	addr := namesrvtest.Start(t).Addr().String()
	b := registeredBroker(t, addr, fakebroker.Topic("UnregTopic", 4))
	c := dialNS(t, addr)
	require.NoError(t, routeHasBroker(ctxT(t), c, "UnregTopic", b))

	require.NoError(t, b.UnregisterAll(ctxT(t)))
	poll.Until(t, "route gone after UNREGISTER_BROKER", waitTimeout, 10*time.Millisecond, func() error {
		return routeGone(ctxT(t), c, "UnregTopic")
	})
	changed, stored, err := b.QueryDataVersion(ctxT(t), addr)
	require.NoError(t, err)
	require.True(t, changed, "no live entry left: the NameServer must ask for a registration")
	require.Nil(t, stored)
}

// TestOldConnectionCloseAfterReregistration: a broker re-registers over a
// new connection; the later close of its old connection leaves it
// registered. A witness broker registered only over the old connection
// shows when that close has been processed.
func TestOldConnectionCloseAfterReregistration(t *testing.T) {
	srv := namesrvtest.Start(t)
	addr := srv.Addr().String()
	b := newBroker(t, fakebroker.Config{BrokerName: "broker-a", Topics: []fakebroker.TopicConfig{fakebroker.Topic("StayTopic", 4)}})
	w := newBroker(t, fakebroker.Config{BrokerName: "witness", Topics: []fakebroker.TopicConfig{fakebroker.Topic("WitnessTopic", 4)}})
	old := dialNS(t, addr)
	_, err := b.RegisterOn(ctxT(t), old)
	require.NoError(t, err)
	_, err = w.RegisterOn(ctxT(t), old)
	require.NoError(t, err)

	_, err = b.Register(ctxT(t), addr) // the broker's own, new connection
	require.NoError(t, err)
	require.NoError(t, old.Close())

	c := dialNS(t, addr)
	poll.Until(t, "the witness unregistered by the old connection's close", waitTimeout, 10*time.Millisecond, func() error {
		return routeGone(ctxT(t), c, "WitnessTopic")
	})
	srv.Routes().WaitIdle()
	require.NoError(t, routeHasBroker(ctxT(t), c, "StayTopic", b))
	changed, _, err := b.QueryDataVersion(ctxT(t), addr)
	require.NoError(t, err)
	require.False(t, changed, "the broker's live entry must survive")
}

// TestReregistrationAndDataVersion: an unchanged re-registration keeps the
// route; QUERY_DATA_VERSION tells the broker when to register again; a
// changed DataVersion brings a new topic in.
func TestReregistrationAndDataVersion(t *testing.T) {
	addr := namesrvtest.Start(t).Addr().String()
	b := registeredBroker(t, addr, fakebroker.Topic("DVTopic", 4))
	c := dialNS(t, addr)

	need, err := b.NeedRegister(ctxT(t), addr)
	require.NoError(t, err)
	require.False(t, need)
	_, err = b.Register(ctxT(t), addr) // unchanged DataVersion
	require.NoError(t, err)
	require.NoError(t, routeHasBroker(ctxT(t), c, "DVTopic", b))

	b.SetTopic(fakebroker.Topic("DVTopic2", 2))
	need, err = b.NeedRegister(ctxT(t), addr)
	require.NoError(t, err)
	require.True(t, need)
	require.NoError(t, routeGone(ctxT(t), c, "DVTopic2"))
	_, err = b.Register(ctxT(t), addr)
	require.NoError(t, err)
	require.NoError(t, routeHasBroker(ctxT(t), c, "DVTopic2", b))

	// Heartbeats are oneway: nothing comes back, the connection stays usable.
	require.NoError(t, b.Heartbeat(ctxT(t), addr))
	require.NoError(t, b.HeartbeatViaDataVersion(ctxT(t), addr))
	need, err = b.NeedRegister(ctxT(t), addr)
	require.NoError(t, err)
	require.False(t, need)
}

// TestSingleTopicGuard: a first registration with exactly one topic fails
// with code 1 "register broker failed" (RouteInfoManager's guard), over the
// wire as from Java.
func TestSingleTopicGuard(t *testing.T) {
	addr := namesrvtest.Start(t).Addr().String()
	b := newBroker(t, fakebroker.Config{NoSystemTopics: true, Topics: []fakebroker.TopicConfig{fakebroker.Topic("Lonely", 4)}})
	resp, err := b.Register(ctxT(t), addr)
	var re *fakebroker.ResponseError
	require.ErrorAs(t, err, &re)
	require.Equal(t, remoting.SystemError, resp.Code)
	require.Equal(t, "register broker failed", resp.Remark)
}

// TestNotifyMinBrokerIDChange: with notifyMinBrokerIdChanged, a master
// registering after its slave makes the NameServer push 905 to the slave.
func TestNotifyMinBrokerIDChange(t *testing.T) {
	addr := namesrvtest.Start(t, namesrvtest.WithConfig(func(c *config.NamesrvConfig) { c.NotifyMinBrokerIdChanged = true })).Addr().String()
	slave := newBroker(t, fakebroker.Config{BrokerID: 1, NameServers: []string{addr}})
	require.NoError(t, slave.RegisterAll(ctxT(t)))
	master := registeredBroker(t, addr, fakebroker.Topic("NotifyTopic", 4))

	req, err := slave.WaitRequest(ctxT(t), remoting.NotifyMinBrokerIDChange)
	require.NoError(t, err)
	require.Equal(t, "0", req.ExtFields["minBrokerId"])
	require.Equal(t, master.Addr(), req.ExtFields["minBrokerAddr"])
	require.Equal(t, master.HAAddr(), req.ExtFields["haBrokerAddr"], "the registrant's HA address")
	require.Zero(t, master.RequestCount(remoting.NotifyMinBrokerIDChange))
}
