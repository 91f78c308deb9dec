package fakebroker

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

func newTestBroker(t *testing.T, cfg Config) *Broker {
	t.Helper()
	b, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// dialBroker connects to the broker's own port as a producer would.
func dialBroker(t *testing.T, b *Broker) *remoting.Client {
	t.Helper()
	c, err := remoting.Dial(testCtx(t), b.Addr(), remoting.ClientOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestRegisterRequestLikeJavaBroker(t *testing.T) {
	b := newTestBroker(t, Config{BrokerID: 1, HeartbeatTimeoutMillis: 10000, ZoneName: "z1",
		Topics: []TopicConfig{Topic("T", 8)}})
	req, err := b.RegisterRequest()
	require.NoError(t, err)
	require.Equal(t, remoting.RegisterBroker, req.Code)
	require.Equal(t, remoting.CurrentVersion, req.Version)
	require.Equal(t, remoting.LanguageJava, req.Language)
	want := map[string]string{
		"brokerAddr": b.Addr(), "brokerId": "1", "brokerName": DefaultBrokerName,
		"clusterName": DefaultCluster, "haServerAddr": b.HAAddr(), "enableActingMaster": "false",
		"compressed": "false", "heartbeatTimeoutMillis": "10000", "__ZONE_NAME": "z1",
	}
	for k, v := range want {
		require.Equal(t, v, req.ExtFields[k], k)
	}
	crc, _, err := req.ExtInt32("bodyCrc32")
	require.NoError(t, err)
	require.Equal(t, wire.CRC32(req.Body), crc)

	rb, err := wire.DecodeRegisterBody(req.Body, req.Version, false)
	require.NoError(t, err)
	require.Equal(t, b.DataVersion(), rb.DataVersion)
	require.Contains(t, rb.TopicConfigs, "T")
	require.Contains(t, rb.TopicConfigs, DefaultCluster)
	require.Contains(t, rb.TopicConfigs, "rmq_sys_SYNC_BROKER_MEMBER_"+DefaultBrokerName)
	require.NotNil(t, rb.FilterServerList)
}

func TestDataVersionBumps(t *testing.T) {
	b := newTestBroker(t, Config{NoSystemTopics: true})
	dv := b.DataVersion()
	b.SetTopic(Topic("A", 1))
	require.Equal(t, dv.Counter+1, b.DataVersion().Counter)
	require.Greater(t, b.DataVersion().Timestamp, dv.Timestamp)
	b.RemoveTopic("A")
	require.Empty(t, b.TopicConfigs())
	b.SetStateVersion(7)
	require.Equal(t, int64(7), b.DataVersion().StateVersion)
}

func TestSendMessageV2JavaStyle(t *testing.T) {
	b := newTestBroker(t, Config{})
	c := dialBroker(t, b)
	ext := map[string]string{"a": "pg", "b": "TopicX", "e": "2", "f": "0", "h": "0",
		"i": "TAGS\x01tg\x02KEYS\x01k1\x02", "m": "false"}
	resp, err := c.Invoke(testCtx(t), remoting.NewRequest(SendMessageV2, ext, []byte("payload")))
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code)
	require.Equal(t, "2", resp.ExtFields["queueId"])
	require.Equal(t, "0", resp.ExtFields["queueOffset"])
	require.Len(t, resp.ExtFields["msgId"], 32)

	m, err := b.WaitMessage(testCtx(t), nil)
	require.NoError(t, err)
	require.Equal(t, Message{Code: SendMessageV2, ProducerGroup: "pg", Topic: "TopicX", QueueID: 2,
		MsgID: resp.ExtFields["msgId"], Body: []byte("payload"),
		Properties: map[string]string{"TAGS": "tg", "KEYS": "k1"}}, m)
}

func TestSendCompressedMessage(t *testing.T) {
	b := newTestBroker(t, Config{})
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, err := zw.Write([]byte("big body"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	ext := map[string]string{"producerGroup": "pg", "topic": "Z", "queueId": "0", "sysFlag": "1", "flag": "0"}
	resp, err := dialBroker(t, b).Invoke(testCtx(t), remoting.NewRequest(SendMessage, ext, z.Bytes()))
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code)
	require.Equal(t, "big body", string(b.Messages()[0].Body))
}

// batchEntry encodes one message as MessageDecoder.encodeMessages does.
func batchEntry(body, props string) []byte {
	size := 20 + len(body) + 2 + len(props)
	out := binary.BigEndian.AppendUint32(nil, uint32(size))
	out = binary.BigEndian.AppendUint32(out, 0)
	out = binary.BigEndian.AppendUint32(out, 0)
	out = binary.BigEndian.AppendUint32(out, 5)
	out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
	out = append(out, body...)
	out = binary.BigEndian.AppendUint16(out, uint16(len(props)))
	return append(out, props...)
}

func TestSendBatch(t *testing.T) {
	b := newTestBroker(t, Config{})
	data := append(batchEntry("one", "UNIQ_KEY\x01u1\x02"), batchEntry("two", "")...)
	ext := map[string]string{"a": "pg", "b": "B", "e": "1", "m": "true"}
	resp, err := dialBroker(t, b).Invoke(testCtx(t), remoting.NewRequest(SendBatchMessage, ext, data))
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code)
	msgs := b.Messages()
	require.Len(t, msgs, 2)
	require.Equal(t, "one", string(msgs[0].Body))
	require.Equal(t, "u1", msgs[0].Properties[PropertyUniqueKey])
	require.Equal(t, int32(5), msgs[1].Flag)
	require.Equal(t, int64(1), msgs[1].QueueOffset)
	require.Equal(t, msgs[0].MsgID+","+msgs[1].MsgID, resp.ExtFields["msgId"])

	resp, err = dialBroker(t, b).Invoke(testCtx(t), remoting.NewRequest(SendBatchMessage, ext, data[:30]))
	require.NoError(t, err)
	require.Equal(t, remoting.SystemError, resp.Code)
}

func TestOtherRequestsRecorded(t *testing.T) {
	b := newTestBroker(t, Config{})
	c := dialBroker(t, b)
	resp, err := c.Invoke(testCtx(t), remoting.NewRequest(HeartBeat, nil, []byte("{}")))
	require.NoError(t, err)
	require.Equal(t, remoting.Success, resp.Code)
	resp, err = c.Invoke(testCtx(t), remoting.NewRequest(999, nil, nil))
	require.NoError(t, err)
	require.Equal(t, remoting.RequestCodeNotSupported, resp.Code)
	require.NoError(t, c.InvokeOneway(remoting.NewRequest(remoting.NotifyMinBrokerIDChange,
		map[string]string{"minBrokerId": "0"}, nil)))
	req, err := b.WaitRequest(testCtx(t), remoting.NotifyMinBrokerIDChange)
	require.NoError(t, err)
	require.Equal(t, "0", req.ExtFields["minBrokerId"])
	require.Equal(t, 1, b.RequestCount(HeartBeat))
	require.Len(t, b.Requests(), 3)
}

func TestClosedBroker(t *testing.T) {
	b, err := New(Config{NameServers: []string{"127.0.0.1:1"}})
	require.NoError(t, err)
	require.NoError(t, b.Close())
	require.NoError(t, b.Close())
	_, err = b.Register(testCtx(t), "127.0.0.1:1")
	require.ErrorIs(t, err, ErrClosed)
	require.Error(t, b.RegisterAll(testCtx(t)))
}

// TestPushedOverNameServerConnection: a request a NameServer pushes over
// the broker's own connection is recorded and acknowledged.
func TestPushedOverNameServerConnection(t *testing.T) {
	ns := remoting.NewServer(remoting.ServerConfig{})
	ns.Register(remoting.RegisterBroker, func(c *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		push := remoting.NewRequest(remoting.NotifyMinBrokerIDChange, map[string]string{"minBrokerId": "3"}, nil)
		push.MarkOneway()
		if err := c.SendOneway(push); err != nil {
			return nil, err
		}
		return remoting.NewResponse(req, remoting.Success, ""), nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = ns.Serve(ln) }()
	t.Cleanup(func() { _ = ns.Close() })

	b := newTestBroker(t, Config{NameServers: []string{ln.Addr().String()}})
	require.NoError(t, b.RegisterAll(testCtx(t)))
	req, err := b.WaitRequest(testCtx(t), remoting.NotifyMinBrokerIDChange)
	require.NoError(t, err)
	require.Equal(t, "3", req.ExtFields["minBrokerId"])

	old, err := b.Reconnect(testCtx(t), ln.Addr().String())
	require.NoError(t, err)
	require.NotNil(t, old)
	require.NoError(t, old.Close())
	require.NoError(t, b.Disconnect(ln.Addr().String()))
}
