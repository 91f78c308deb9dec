package namesrv

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/route"
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
	require.Equal(t, &route.DataVersion{}, stored)
}
