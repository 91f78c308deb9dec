package integration

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// forEachTarget runs fn against an in-process namesrv.Server and against
// the cmd/namesrv binary. The subtests run one after the other:
// rocketmq-client-go keeps process-wide client state.
func forEachTarget(t *testing.T, fn func(t *testing.T, addr string)) {
	t.Run("inprocess", func(t *testing.T) {
		fn(t, namesrvtest.Start(t).Addr().String())
	})
	t.Run("binary", func(t *testing.T) {
		fn(t, startBinary(t, nil).addr)
	})
}

// instanceName is a process-unique rocketmq-client-go instance name, so
// clients of different tests never share a cached client.
func instanceName(t *testing.T) string {
	return fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
}

// newAdmin returns a rocketmq-client-go admin for one NameServer.
func newAdmin(t *testing.T, addr string) admin.Admin {
	t.Helper()
	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{addr})))
	require.NoError(t, err)
	t.Cleanup(func() { _ = adm.Close() })
	return adm
}

// registeredBroker starts a fake broker with topics and registers it.
func registeredBroker(t *testing.T, addr string, topics ...fakebroker.TopicConfig) *fakebroker.Broker {
	t.Helper()
	b := newBroker(t, fakebroker.Config{NameServers: []string{addr}, Topics: topics})
	require.NoError(t, b.RegisterAll(ctxT(t)))
	return b
}

// TestAdminFetchesRoutes: the Go admin parses this NameServer's routes and
// topic list.
func TestAdminFetchesRoutes(t *testing.T) {
	forEachTarget(t, func(t *testing.T, addr string) {
		b := registeredBroker(t, addr, fakebroker.Topic("AdminTopicA", 4), fakebroker.Topic("AdminTopicB", 2))
		adm := newAdmin(t, addr)

		mqs, err := adm.FetchPublishMessageQueues(ctxT(t), "AdminTopicA")
		require.NoError(t, err)
		require.Len(t, mqs, 4)
		for i, mq := range mqs {
			require.Equal(t, primitive.MessageQueue{Topic: "AdminTopicA", BrokerName: b.BrokerName(), QueueId: i}, *mq)
		}

		tl, err := adm.FetchAllTopicList(ctxT(t))
		require.NoError(t, err)
		for _, topic := range []string{"AdminTopicA", "AdminTopicB", b.ClusterName(), b.BrokerName()} {
			require.Contains(t, tl.TopicList, topic)
		}
	})
}

// TestProducerSendSync: a Go producer finds the route through this
// NameServer, sends to the fake broker and gets SEND_OK.
func TestProducerSendSync(t *testing.T) {
	forEachTarget(t, func(t *testing.T, addr string) {
		b := registeredBroker(t, addr, fakebroker.Topic("ProduceTopic", 4))
		p, err := producer.NewDefaultProducer(
			producer.WithNameServer([]string{addr}), producer.WithRetry(2),
			producer.WithGroupName("it_producer"), producer.WithInstanceName(instanceName(t)),
			producer.WithSendMsgTimeout(5*time.Second))
		require.NoError(t, err)
		require.NoError(t, p.Start())
		t.Cleanup(func() { _ = p.Shutdown() })

		msg := primitive.NewMessage("ProduceTopic", []byte("hello namesrv"))
		msg.WithTag("TagA")
		msg.WithKeys([]string{"key-1"})
		res, err := p.SendSync(ctxT(t), msg)
		require.NoError(t, err)
		require.Equal(t, primitive.SendOK, res.Status, res.String())
		require.Equal(t, b.BrokerName(), res.MessageQueue.BrokerName)

		got, err := b.WaitMessage(ctxT(t), func(m fakebroker.Message) bool { return m.Topic == "ProduceTopic" })
		require.NoError(t, err)
		require.Equal(t, "hello namesrv", string(got.Body))
		require.Equal(t, "TagA", got.Tags())
		require.Equal(t, "key-1", got.Keys())
		require.Equal(t, res.MsgID, got.Properties[fakebroker.PropertyUniqueKey])
		require.Equal(t, got.MsgID, res.OffsetMsgID)
		require.Equal(t, int(got.QueueID), res.MessageQueue.QueueId)
		require.Equal(t, "it_producer", got.ProducerGroup)

		batch, err := p.SendSync(ctxT(t), primitive.NewMessage("ProduceTopic", []byte("b1")),
			primitive.NewMessage("ProduceTopic", []byte("b2")))
		require.NoError(t, err)
		require.Equal(t, primitive.SendOK, batch.Status)
		poll.Until(t, "the batch at the broker", waitTimeout, 10*time.Millisecond, func() error {
			return hasBodies(b.Messages(), fakebroker.SendBatchMessage, "b1", "b2")
		})
	})
}

// hasBodies checks that msgs holds messages with these bodies sent with code.
func hasBodies(msgs []fakebroker.Message, code int32, bodies ...string) error {
	var got []string
	for _, m := range msgs {
		if m.Code == code {
			got = append(got, string(m.Body))
		}
	}
	for _, b := range bodies {
		if !slices.Contains(got, b) {
			return fmt.Errorf("no %q among %q sent with code %d", b, got, code)
		}
	}
	return nil
}

// TestPullConsumerSeesReadQueues: the consumer side of the route (read
// queues) as the Go pull consumer sees it.
func TestPullConsumerSeesReadQueues(t *testing.T) {
	forEachTarget(t, func(t *testing.T, addr string) {
		tc := fakebroker.Topic("ConsumeTopic", 3)
		tc.ReadQueueNums = 6
		registeredBroker(t, addr, tc)
		c, err := consumer.NewPullConsumer(consumer.WithNameServer([]string{addr}),
			consumer.WithGroupName("it_consumer"), consumer.WithInstance(instanceName(t)))
		require.NoError(t, err)
		// Assign mode with no queues: Start fetches the route but nothing
		// rebalances or pulls (a Subscribe-mode rebalance goroutine races
		// with Shutdown inside rocketmq-client-go: rmqClient.close).
		require.NoError(t, c.Assign("ConsumeTopic", nil))
		require.NoError(t, c.Start())
		t.Cleanup(func() { _ = c.Shutdown() })

		mqs, err := c.GetTopicRouteInfo("ConsumeTopic")
		require.NoError(t, err)
		require.Len(t, mqs, 6)
	})
}
