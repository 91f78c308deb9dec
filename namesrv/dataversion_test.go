package namesrv

import (
	"fmt"
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// versionlessBody is a RegisterBrokerBody whose topicConfigSerializeWrapper
// carries dv verbatim as its dataVersion member (none when dv is empty) and
// two topics, dv-a and dv-b, with the given perm and queue numbers. Java
// gives a wrapper without dataVersion a new DataVersion(), stamped with the
// time it decodes the body.
func versionlessBody(dv string, perm, queues int32) []byte {
	topic := func(name string) string {
		return fmt.Sprintf(`"%s":{"order":false,"perm":%d,"readQueueNums":%d,"topicFilterType":"SINGLE_TAG",`+
			`"topicName":"%s","topicSysFlag":0,"writeQueueNums":%d}`, name, perm, queues, name, queues)
	}
	if dv != "" {
		dv = `"dataVersion":` + dv + `,`
	}
	return []byte(`{"filterServerList":[],"topicConfigSerializeWrapper":{` + dv +
		`"topicConfigTable":{` + topic("dv-a") + `,` + topic("dv-b") + `}}}`)
}

// queueOf is broker-u's QueueData of topic.
func queueOf(t *testing.T, srv *Server, topic string) wire.QueueData {
	t.Helper()
	snap := srv.Routes().Lookup(topic)
	require.NotNil(t, snap, topic)
	for _, qd := range snap.Route.QueueDatas {
		if qd.BrokerName == "broker-u" {
			return qd
		}
	}
	require.Failf(t, "no queue data of broker-u", "topic %s", topic)
	return wire.QueueData{}
}

// registerOK registers b as broker-u's master over conn.
func registerOK(t *testing.T, conn net.Conn, b []byte) {
	t.Helper()
	resp := readReplyTo(t, conn, registerFrame(0, "10.2.0.1:10911", b))
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
}

func TestRegisterWithoutDataVersionAppliesEveryBody(t *testing.T) {
	for name, dv := range map[string]string{"no dataVersion": "", "no timestamp": `{"counter":0,"stateVersion":0}`,
		"null dataVersion": "null"} {
		t.Run(name, func(t *testing.T) {
			srv := startServer(t, nil)
			conn := dialRaw(t, srv)
			registerOK(t, conn, versionlessBody(dv, 6, 8))
			require.Equal(t, wire.QueueData{BrokerName: "broker-u", ReadQueueNums: 8, WriteQueueNums: 8, Perm: 6},
				queueOf(t, srv, "dv-a"))

			registerOK(t, conn, versionlessBody(dv, 4, 2))
			want := wire.QueueData{BrokerName: "broker-u", ReadQueueNums: 2, WriteQueueNums: 2, Perm: 4}
			require.Equal(t, want, queueOf(t, srv, "dv-a"), "Java: a new DataVersion, every topic is put")
			require.Equal(t, want, queueOf(t, srv, "dv-b"))
		})
	}
}

func TestIdenticalBodyWithoutDataVersionIsNotUnchanged(t *testing.T) {
	srv := startServer(t, nil)
	b := versionlessBody("", 6, 8)
	conn := dialRaw(t, srv)
	registerOK(t, conn, b)
	for _, c := range []net.Conn{conn, conn, dialRaw(t, srv)} {
		require.Equal(t, 2, srv.Routes().WipeWritePerm("broker-u"))
		require.Equal(t, int32(4), queueOf(t, srv, "dv-a").Perm)
		registerOK(t, c, b)
		require.Equal(t, int32(6), queueOf(t, srv, "dv-a").Perm, "Java puts every topic again: write perm back")
	}
	require.Zero(t, srv.Routes().Stats().UnchangedRegistrations, "no digest for a body without a timestamp")
}

// queryDataVersion sends QUERY_DATA_VERSION for broker-u's master with dv
// as its body.
func queryDataVersion(t *testing.T, c *remoting.Client, dv string) (changed string, stored *wire.DataVersion) {
	t.Helper()
	resp := invoke(t, c, remoting.NewRequest(remoting.QueryDataVersion, map[string]string{"clusterName": "UCluster",
		"brokerAddr": "10.2.0.1:10911", "brokerName": "broker-u", "brokerId": "0"}, []byte(dv)))
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	if len(resp.Body) > 0 {
		v, err := wire.DecodeDataVersion(resp.Body)
		require.NoError(t, err)
		stored = v
	}
	return resp.ExtFields["changed"], stored
}

func TestQueryDataVersionWithoutTimestamp(t *testing.T) {
	srv := startServer(t, nil)
	conn, c := dialRaw(t, srv), dial(t, srv)
	zero := `{"counter":0,"stateVersion":0,"timestamp":0}`

	registerOK(t, conn, versionlessBody(zero, 6, 8))
	changed, stored := queryDataVersion(t, c, zero)
	require.Equal(t, "false", changed, "the same DataVersion")
	require.Equal(t, &wire.DataVersion{}, stored)
	changed, _ = queryDataVersion(t, c, `{"counter":0,"stateVersion":0}`)
	require.Equal(t, "true", changed, "Java stamps a DataVersion without timestamp with the time it decodes it")

	registerOK(t, conn, versionlessBody("", 6, 8))
	changed, stored = queryDataVersion(t, c, zero)
	require.Equal(t, "true", changed, "the registration's DataVersion was stamped when decoded")
	require.NotNil(t, stored)
	require.Positive(t, stored.Timestamp, "the stamp is the registration's wall-clock time")
	changed, _ = queryDataVersion(t, c, string(wire.AppendDataVersion(nil, stored)))
	require.Equal(t, "false", changed, "the stamped version itself")
}
