package integration

import (
	"testing"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// TestPrimeSlaveReaddsDeletedTopic: a slave (5.x, enableActingMaster
// false) of a group whose master is live keeps re-registering the same
// body while an admin deletes one of its topics from the NameServer
// (rocketmq-client-go admin: DELETE_TOPIC_IN_BROKER, then
// DELETE_TOPIC_IN_NAMESRV). When the master unregisters, the slave is the
// prime slave: its next registration of that body re-adds the topic, as
// RouteInfoManager.registerBroker does (isTopicConfigChanged: no QueueData
// of the group), whether or not the body is decoded.
func TestPrimeSlaveReaddsDeletedTopic(t *testing.T) {
	srv := namesrvtest.Start(t)
	addr := srv.Addr().String()
	topics := []fakebroker.TopicConfig{fakebroker.Topic("PrimeTopic", 4), fakebroker.Topic("KeepTopic", 4)}
	slave := newBroker(t, fakebroker.Config{BrokerName: "broker-p", BrokerID: 1, Topics: topics})
	master := newBroker(t, fakebroker.Config{BrokerName: "broker-p", Topics: []fakebroker.TopicConfig{
		fakebroker.Topic("MasterTopic", 4)}})
	_, err := slave.Register(ctxT(t), addr) // prime slave: its topics are applied
	require.NoError(t, err)
	_, err = master.Register(ctxT(t), addr)
	require.NoError(t, err)
	c := dialNS(t, addr)
	require.NoError(t, routeHasBroker(ctxT(t), c, "PrimeTopic", slave))

	adm := newAdmin(t, addr)
	require.NoError(t, adm.DeleteTopic(ctxT(t), admin.WithTopicDelete("PrimeTopic"),
		admin.WithBrokerAddrDelete(master.Addr()), admin.WithNameSrvAddr([]string{addr})))
	require.NoError(t, routeGone(ctxT(t), c, "PrimeTopic"))
	unchanged := srv.Routes().Stats().UnchangedRegistrations
	_, err = slave.Register(ctxT(t), addr) // the same bytes, a slave under a live master
	require.NoError(t, err)
	require.Equal(t, unchanged+1, srv.Routes().Stats().UnchangedRegistrations, "the body was not decoded")

	require.NoError(t, master.Unregister(ctxT(t), addr))
	srv.Routes().WaitIdle()
	_, err = slave.Register(ctxT(t), addr) // now the prime slave
	require.NoError(t, err)
	require.NoError(t, routeHasBroker(ctxT(t), c, "PrimeTopic", slave), "the prime slave's topics are applied again")
	require.NoError(t, routeHasBroker(ctxT(t), c, "KeepTopic", slave))
}
