package namesrv

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// holdLane occupies the registration lane until the returned function is
// called (at the latest when the test ends).
func holdLane(t *testing.T, srv *Server) (release func()) {
	held := make(chan struct{})
	srv.lane.work <- func() { <-held } // returns once the lane runs it
	var released bool
	release = func() {
		if !released {
			released = true
			close(held)
		}
	}
	t.Cleanup(release)
	return release
}

// TestIdenticalRegistrationSkipsTheLane: a re-registration whose body is
// byte-identical to the one last applied for the broker is answered on its
// connection's reader, while the lane is busy with another registration;
// one that must be decoded (a changed body, or a header that does not
// decode) waits for the lane. The answers are the lane path's, byte for
// byte.
func TestIdenticalRegistrationSkipsTheLane(t *testing.T) {
	srv := startServer(t, nil)
	stats := srv.Routes().Stats
	b := registerBody(t, 50, 1)
	master := registerFrame(0, "10.2.0.1:10911", b)
	first := dialRaw(t, srv)
	full := roundTrip(t, first, master)
	require.Equal(t, uint64(1), stats().Registrations)

	release := holdLane(t, srv)
	changed := dialRaw(t, srv)
	_, err := changed.Write(registerFrame(0, "10.2.0.1:10911", registerBody(t, 50, 2)))
	require.NoError(t, err)
	bad := dialRaw(t, srv)
	_, err = bad.Write(javaFrame(javaHeader(103, 0, 1, `"brokerName":"broker-u"`), b))
	require.NoError(t, err)

	second := dialRaw(t, srv)
	require.Equal(t, string(full), string(roundTrip(t, second, master)),
		"answered while the lane is held, as the lane would have")
	require.Equal(t, uint64(1), stats().UnchangedRegistrations)

	release()
	require.Equal(t, remoting.Success, readReply(t, changed).Code, "a changed body is decoded on the lane")
	require.Equal(t, int32(remoting.SystemError), readReply(t, bad).Code)
	require.Equal(t, uint64(3), stats().Registrations)
	require.Equal(t, uint64(1), stats().UnchangedRegistrations)
}
