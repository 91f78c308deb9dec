package namesrv

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

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
