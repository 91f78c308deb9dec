package namesrv

import (
	"encoding/binary"
	"fmt"
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// Frames that Java brokers send and the golden capture lacks, built byte for
// byte as the Java classes named in each case produce them: fastjson writes
// RemotingCommand's properties in alphabetical order, version 479 (set by
// the broker's startup), language JAVA, serializeTypeCurrentRPC JSON; each
// typed header becomes extFields through RemotingCommand.makeCustomHeaderToNet.

// javaFrame frames a JSON header and a body as NettyEncoder does.
func javaFrame(header string, b []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(4+len(header)+len(b)))
	out = binary.BigEndian.AppendUint32(out, uint32(len(header)))
	return append(append(out, header...), b...)
}

func javaHeader(code, flag, opaque int, ext string) string {
	return fmt.Sprintf(`{"code":%d,"extFields":{%s},"flag":%d,"language":"JAVA","opaque":%d,`+
		`"serializeTypeCurrentRPC":"JSON","version":479}`, code, ext, flag, opaque)
}

// readReply reads one frame and decodes it.
func readReply(t *testing.T, conn net.Conn) *remoting.Command {
	t.Helper()
	var lenBuf [4]byte
	frame := roundTripRead(t, conn, lenBuf[:])
	cmd, err := remoting.DecodeFrame(frame)
	require.NoError(t, err)
	return cmd
}

// actingMasterBody is what a 5.x broker with enableSlaveActingMaster
// registers: RegisterBrokerBody (BrokerOuterAPI.registerBrokerAll) with two
// topics and a DataVersion carrying the controller's stateVersion.
func actingMasterBody(t *testing.T) []byte {
	b, err := wire.EncodeRegisterBody(&wire.RegisterBody{
		DataVersion: wire.DataVersion{Counter: 2, StateVersion: 3, Timestamp: 1700000000000},
		TopicConfigs: map[string]wire.TopicConfig{
			"TopicJ":   {TopicName: "TopicJ", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6, TopicFilterType: "SINGLE_TAG"},
			"broker-j": {TopicName: "broker-j", ReadQueueNums: 1, WriteQueueNums: 1, Perm: 7, TopicFilterType: "SINGLE_TAG"},
		},
		FilterServerList: []string{},
	}, remoting.CurrentVersion, false)
	require.NoError(t, err)
	return b
}

func TestJavaBrokerFrames(t *testing.T) {
	srv := startServer(t, nil)
	conn, err := net.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	reg := actingMasterBody(t)

	// RegisterBrokerRequestHeader from a broker with enableSlaveActingMaster:
	// heartbeatTimeoutMillis is sent (brokerNotActiveTimeoutMillis).
	ext := fmt.Sprintf(`"bodyCrc32":"%d","brokerAddr":"10.1.0.1:10911","brokerId":"0","brokerName":"broker-j",`+
		`"clusterName":"JCluster","compressed":"false","enableActingMaster":"true",`+
		`"haServerAddr":"10.1.0.1:10912","heartbeatTimeoutMillis":"10000"`, wire.CRC32(reg))
	_, err = conn.Write(javaFrame(javaHeader(103, 0, 1, ext), reg))
	require.NoError(t, err)
	resp := readReply(t, conn)
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	require.Equal(t, int32(1), resp.Opaque)

	// BrokerHeartbeatRequestHeader (BrokerOuterAPI.sendHeartbeat), oneway, and
	// QueryDataVersionRequestHeader (sendHeartbeatViaDataVersion), oneway:
	// neither may be answered, so the next reply on the connection is the
	// one for the sync request that follows them.
	hb := `"brokerAddr":"10.1.0.1:10911","brokerName":"broker-j","clusterName":"JCluster"`
	_, err = conn.Write(javaFrame(javaHeader(904, 2, 2, hb), nil))
	require.NoError(t, err)
	dv := []byte(`{"counter":2,"stateVersion":3,"timestamp":1700000000000}`)
	qdv := hb + `,"brokerId":"0"`
	_, err = conn.Write(javaFrame(javaHeader(322, 2, 3, qdv), dv))
	require.NoError(t, err)
	_, err = conn.Write(javaFrame(javaHeader(322, 0, 4, qdv), dv))
	require.NoError(t, err)
	resp = readReply(t, conn)
	require.Equal(t, int32(4), resp.Opaque, "oneway requests must not be answered")
	require.Equal(t, "false", resp.ExtFields["changed"])

	// RegisterTopicRequestHeader + TopicRouteData in fastjson's default
	// flavour (BrokerOuterAPI.registerSingleTopicAll).
	rt := []byte(`{"brokerDatas":[],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-j","perm":6,"readQueueNums":2,"topicSysFlag":0,"writeQueueNums":2}]}`)
	_, err = conn.Write(javaFrame(javaHeader(217, 0, 5, `"topic":"SingleJ"`), rt))
	require.NoError(t, err)
	require.Equal(t, remoting.Success, readReply(t, conn).Code)

	// GetRouteInfoRequestHeader for the member-group topic that brokers with
	// compatibleWithOldNameSrv poll (BrokerOuterAPI.getBrokerMemberGroup).
	_, err = conn.Write(javaFrame(javaHeader(105, 0, 6, `"topic":"SingleJ"`), nil))
	require.NoError(t, err)
	resp = readReply(t, conn)
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	require.Contains(t, string(resp.Body), `"brokerAddrs":{"0":"10.1.0.1:10911"}`)
	require.Contains(t, string(resp.Body), `"enableActingMaster":true`)

	// GetBrokerMemberGroupRequestHeader (BrokerOuterAPI.syncBrokerMemberGroup).
	_, err = conn.Write(javaFrame(javaHeader(901, 0, 7, `"brokerName":"broker-j","clusterName":"JCluster"`), nil))
	require.NoError(t, err)
	resp = readReply(t, conn)
	require.Equal(t, `{"brokerMemberGroup":{"brokerAddrs":{0:"10.1.0.1:10911"},"brokerName":"broker-j","cluster":"JCluster"}}`, string(resp.Body))

	// UnRegisterBrokerRequestHeader (BrokerOuterAPI.unregisterBroker): queued,
	// then the route disappears.
	un := `"brokerAddr":"10.1.0.1:10911","brokerId":"0","brokerName":"broker-j","clusterName":"JCluster"`
	_, err = conn.Write(javaFrame(javaHeader(104, 0, 8, un), nil))
	require.NoError(t, err)
	require.Equal(t, remoting.Success, readReply(t, conn).Code)
	srv.Routes().WaitIdle()
	require.Nil(t, srv.Routes().Lookup("TopicJ"))
}
