package namesrv

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// TestIdenticalBodyWithNullTimestampIsNotUnchanged: fastjson leaves a
// DataVersion's timestamp at the time of decoding when the body says
// "timestamp":null, so Java puts every topic again on each registration
// of that body (a namesrv-side wipe of the write permission is undone).
func TestIdenticalBodyWithNullTimestampIsNotUnchanged(t *testing.T) {
	srv := startServer(t, nil)
	b := versionlessBody(`{"counter":1,"stateVersion":0,"timestamp":null}`, 6, 8)
	conn := dialRaw(t, srv)
	registerOK(t, conn, b)
	require.Equal(t, 2, srv.Routes().WipeWritePerm("broker-u"))
	registerOK(t, conn, b)
	require.Equal(t, int32(6), queueOf(t, srv, "dv-a").Perm, "Java puts every topic again: write perm back")
	require.Zero(t, srv.Routes().Stats().UnchangedRegistrations)
}

// TestQueryDataVersionNullBody: DataVersion.decode("null") is null and
// isBrokerTopicConfigChanged(null) is true: Java answers success with
// changed=true and the stored version.
func TestQueryDataVersionNullBody(t *testing.T) {
	srv := startServer(t, nil)
	conn, c := dialRaw(t, srv), dial(t, srv)
	zero := `{"counter":0,"stateVersion":0,"timestamp":0}`
	registerOK(t, conn, versionlessBody(zero, 6, 8))
	changed, stored := queryDataVersion(t, c, `null`)
	require.Equal(t, "true", changed)
	require.Equal(t, &wire.DataVersion{}, stored)
}

// TestNullDataVersionIsKept: fastjson sets "dataVersion":null on the
// wrapper, and Java's live entry keeps that null: QUERY_DATA_VERSION
// answers changed=true without a body (queryBrokerTopicConfig is null),
// and a takeover of the broker id by another address throws in
// registerBroker's stateVersion check (caught: success, empty result, no
// change past step 5), whichever of the two versions is null.
func TestNullDataVersionIsKept(t *testing.T) {
	srv := startServer(t, nil)
	conn, c := dialRaw(t, srv), dial(t, srv)
	zero := `{"counter":0,"stateVersion":0,"timestamp":0}`
	registerOK(t, conn, versionlessBody("null", 6, 8))
	changed, stored := queryDataVersion(t, c, zero)
	require.Equal(t, "true", changed)
	require.Nil(t, stored, "Java's stored DataVersion is null: no body")

	other := dialRaw(t, srv)
	resp := readReplyTo(t, other, registerFrame(0, "10.2.0.9:10911", versionlessBody(zero, 6, 8)))
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	require.Equal(t, map[int64]string{0: "10.2.0.1:10911"},
		srv.Routes().ClusterInfo().BrokerAddrTable["broker-u"].BrokerAddrs, "the holder's null version throws")

	registerOK(t, conn, versionlessBody(zero, 6, 8))
	changed, stored = queryDataVersion(t, c, zero)
	require.Equal(t, "false", changed)
	require.Equal(t, &wire.DataVersion{}, stored)
	resp = readReplyTo(t, other, registerFrame(0, "10.2.0.9:10911", versionlessBody("null", 6, 8)))
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	require.Equal(t, map[int64]string{0: "10.2.0.1:10911"},
		srv.Routes().ClusterInfo().BrokerAddrTable["broker-u"].BrokerAddrs, "the registrant's null version throws")
	changed, stored = queryDataVersion(t, c, zero)
	require.Equal(t, "false", changed, "the holder's entry is untouched")
	require.Equal(t, &wire.DataVersion{}, stored)
}

// TestStampedUnstampedStamped: a stamped body A, then one without
// timestamp, then A again: Java finds A's version unequal to the stamped
// one stored in between (every topic put: a wiped write perm comes back),
// and A once more equal (only missing topics: the wipe stays). The digest
// A left before the unstamped body must not answer the second A.
func TestStampedUnstampedStamped(t *testing.T) {
	srv := startServer(t, nil)
	a := versionlessBody(`{"counter":7,"stateVersion":0,"timestamp":1700000000000}`, 6, 8)
	u := versionlessBody(`{"counter":7,"stateVersion":0}`, 6, 8)
	conn := dialRaw(t, srv)
	step := func(c net.Conn, b []byte, wantPerm int32, why string) {
		t.Helper()
		require.Equal(t, 2, srv.Routes().WipeWritePerm("broker-u"))
		registerOK(t, c, b)
		require.Equal(t, wantPerm, queueOf(t, srv, "dv-a").Perm, why)
	}
	registerOK(t, conn, a)
	step(conn, a, 4, "A again: unchanged, the wipe stays")
	step(conn, u, 6, "no timestamp: every topic put")
	step(dialRaw(t, srv), a, 6, "A after the stamped in-between version: changed")
	step(conn, a, 4, "A once more: unchanged")
}
