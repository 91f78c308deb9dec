package namesrv

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// registerBody encodes a RegisterBrokerBody (BrokerOuterAPI.registerBrokerAll)
// of n topics under DataVersion counter, with 8 write queues per topic.
func registerBody(t testing.TB, n int, counter int64) []byte {
	return registerBodyQ(t, n, counter, 8)
}

// registerBodyQ is registerBody with w write queues per topic.
func registerBodyQ(t testing.TB, n int, counter int64, w int32) []byte {
	rb := &wire.RegisterBody{DataVersion: wire.DataVersion{Counter: counter, Timestamp: 1700000000000},
		TopicConfigs: map[string]wire.TopicConfig{}, FilterServerList: []string{}}
	for i := range n {
		name := fmt.Sprintf("topic-%05d", i)
		rb.TopicConfigs[name] = wire.TopicConfig{TopicName: name, ReadQueueNums: 8, WriteQueueNums: w, Perm: 6,
			TopicFilterType: "SINGLE_TAG"}
	}
	b, err := wire.EncodeRegisterBody(rb, remoting.CurrentVersion, false)
	require.NoError(t, err)
	return b
}

// registerFrame is a Java broker's REGISTER_BROKER (RegisterBrokerRequestHeader,
// as in TestJavaBrokerFrames) for broker-u with the given id and address.
func registerFrame(id int, addr string, b []byte) []byte {
	ext := fmt.Sprintf(`"bodyCrc32":"%d","brokerAddr":"%s","brokerId":"%d","brokerName":"broker-u",`+
		`"clusterName":"UCluster","compressed":"false","enableActingMaster":"false",`+
		`"haServerAddr":"%s-ha","heartbeatTimeoutMillis":"30000"`, wire.CRC32(b), addr, id, addr)
	return javaFrame(javaHeader(103, 0, 1, ext), b)
}

func dialRaw(t testing.TB, srv *Server) net.Conn {
	conn, err := net.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

func TestRegisterIdenticalBodyAnswersAsFullPath(t *testing.T) {
	srv := startServer(t, nil)
	admin := dial(t, srv)
	putOrder := func(v string) {
		invoke(t, admin, remoting.NewRequest(remoting.PutKVConfig,
			map[string]string{"namespace": orderTopicNamespace, "key": "topic-00001", "value": v}, nil))
	}
	putOrder("broker-u:8")
	b := registerBody(t, 50, 1)
	stats := srv.Routes().Stats
	first := dialRaw(t, srv)
	require.Equal(t, remoting.Success, readReplyTo(t, first, registerFrame(0, "10.2.0.1:10911", b)).Code)
	slave := registerFrame(1, "10.2.0.2:10911", b)
	full := roundTrip(t, first, slave)
	require.Zero(t, stats().UnchangedRegistrations)

	second := dialRaw(t, srv)
	require.Equal(t, string(full), string(roundTrip(t, second, slave)), "the same reply frame, byte for byte")
	require.Equal(t, uint64(1), stats().UnchangedRegistrations)
	require.Contains(t, string(full), `"masterAddr":"10.2.0.1:10911"`)

	putOrder("broker-u:4") // the KV table is read at answer time
	resp := readReplyTo(t, second, slave)
	require.Equal(t, string(wire.AppendKVTable(nil, map[string]string{"topic-00001": "broker-u:4"})), string(resp.Body))
	require.Equal(t, uint64(2), stats().UnchangedRegistrations)

	require.True(t, srv.Routes().Unregister(wire.UnregisterRequest{ClusterName: "UCluster",
		BrokerAddr: "10.2.0.1:10911", BrokerName: "broker-u"}))
	srv.Routes().WaitIdle()
	resp = readReplyTo(t, second, slave)
	require.NotContains(t, resp.ExtFields, "masterAddr", "a master gone since is reflected")
	require.Equal(t, uint64(2), stats().UnchangedRegistrations, "now the prime slave: step 10 applies its topics")
	resp = readReplyTo(t, second, slave)
	require.NotContains(t, resp.ExtFields, "masterAddr")
	require.Equal(t, uint64(3), stats().UnchangedRegistrations)

	require.NoError(t, first.Close()) // the slave's entry is bound to the second connection now
	require.NoError(t, second.Close())
	poll.Until(t, "closing the new connection unregisters", 10*time.Second, time.Millisecond, poll.True(func() bool { return srv.Routes().Stats().LiveBrokers == 0 }))
}

func TestRegisterChangedBodyTakesFullPath(t *testing.T) {
	srv := startServer(t, nil)
	conn := dialRaw(t, srv)
	b := registerBody(t, 50, 1)
	require.Equal(t, remoting.Success, readReplyTo(t, conn, registerFrame(0, "10.2.0.1:10911", b)).Code)
	stats := srv.Routes().Stats

	flipped := registerBody(t, 50, 2) // one byte differs: the DataVersion counter
	require.Len(t, flipped, len(b))
	require.Equal(t, remoting.Success, readReplyTo(t, conn, registerFrame(0, "10.2.0.1:10911", flipped)).Code)
	require.Equal(t, remoting.Success, readReplyTo(t, conn, registerFrame(1, "10.2.0.2:10911", flipped)).Code,
		"another broker with the same body")
	require.Zero(t, stats().UnchangedRegistrations)
	require.Equal(t, uint64(3), stats().Registrations)

	bad := registerFrame(0, "10.2.0.1:10911", flipped)
	bad[len(bad)-1] ^= 1 // the body no longer matches its bodyCrc32
	require.Equal(t, int32(remoting.SystemError), readReplyTo(t, conn, bad).Code)
	require.Zero(t, stats().UnchangedRegistrations)
}

// readReplyTo writes frame and reads the reply.
func readReplyTo(t *testing.T, conn net.Conn, frame []byte) *remoting.Command {
	cmd, err := remoting.DecodeFrame(roundTrip(t, conn, frame)[4:])
	require.NoError(t, err)
	return cmd
}

// TestAttackIdenticalBodyOtherHeader re-sends a broker's last body byte
// for byte under RegisterBrokerRequestHeader fields that change how it
// decodes or what it means (DefaultRequestProcessor.registerBroker checks
// bodyCrc32, then decodes per compressed and version): each is answered as
// the full path answers it, never from the body last applied.
func TestAttackIdenticalBodyOtherHeader(t *testing.T) {
	srv := startServer(t, nil)
	conn := dialRaw(t, srv)
	b := registerBody(t, 20, 1)
	frame := func(version int, edit func(ext string) string) []byte {
		ext := edit(fmt.Sprintf(`"bodyCrc32":"%d","brokerAddr":"10.3.0.1:10911","brokerId":"0","brokerName":"broker-u",`+
			`"clusterName":"UCluster","compressed":"false","enableActingMaster":"false",`+
			`"haServerAddr":"10.3.0.1:10912","heartbeatTimeoutMillis":"30000"`, wire.CRC32(b)))
		h := strings.Replace(javaHeader(103, 0, 1, ext), `"version":479`, fmt.Sprintf(`"version":%d`, version), 1)
		return javaFrame(h, b)
	}
	same := func(ext string) string { return ext }
	require.Equal(t, remoting.Success, readReplyTo(t, conn, frame(479, same)).Code)
	stats := srv.Routes().Stats
	require.Equal(t, remoting.Success, readReplyTo(t, conn, frame(479, same)).Code)
	require.Equal(t, uint64(1), stats().UnchangedRegistrations, "the control: an identical request is not decoded")

	bad := map[string]func(string) string{
		"bodyCrc32 off by one": func(ext string) string {
			return strings.Replace(ext, fmt.Sprint(wire.CRC32(b)), fmt.Sprint(wire.CRC32(b)+1), 1)
		},
		"compressed": func(ext string) string { return strings.Replace(ext, `"compressed":"false"`, `"compressed":"true"`, 1) },
	}
	for name, edit := range bad {
		resp := readReplyTo(t, conn, frame(479, edit))
		require.Equal(t, int32(remoting.SystemError), resp.Code, name)
	}
	require.Equal(t, uint64(1), stats().UnchangedRegistrations)
	require.Equal(t, remoting.Success, readReplyTo(t, conn, frame(479, same)).Code, "the memo survives refused requests")
	require.Equal(t, uint64(2), stats().UnchangedRegistrations)

	zoned := func(ext string) string { return ext + `,"__ZONE_NAME":"zone-b"` }
	require.Equal(t, remoting.Success, readReplyTo(t, conn, frame(479, zoned)).Code)
	require.Equal(t, uint64(2), stats().UnchangedRegistrations, "a new zone takes the full path")
	snap := srv.Routes().Lookup("topic-00000")
	require.NotNil(t, snap)
	require.Equal(t, "zone-b", snap.Route.BrokerDatas[0].ZoneName)
}
