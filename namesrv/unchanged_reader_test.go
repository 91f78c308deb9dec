package namesrv

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

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

// TestRegistrationsAndUnregistrationsInOrder sends, one at a time and on
// two connections picked at random, REGISTER_BROKER of one of two bodies
// (a repeat of the last one takes the unchanged path on the reader, a
// switch the lane) and UNREGISTER_BROKER (queued, fenced by generation)
// for one broker. After each answer and the unregistrations' drain, the
// route is what the last request left: the last body's queues, or no
// topic after an unregistration. RMQ_SEED=N replays a run.
func TestRegistrationsAndUnregistrationsInOrder(t *testing.T) {
	srv := startServer(t, nil)
	conns := [2]*remoting.Client{dial(t, srv), dial(t, srv)}
	bodies := [2][]byte{registerBodyQ(t, 20, 1, 8), registerBodyQ(t, 20, 2, 9)}
	unregister := remoting.NewRequest(remoting.UnregisterBroker, map[string]string{"brokerAddr": "10.3.0.1:10911",
		"brokerId": "0", "brokerName": "broker-l", "clusterName": "LCluster"}, nil)
	rng := seededRand(t)
	last := -1 // the body last registered, -1 after an unregistration
	for i := range 200 {
		c := conns[rng.IntN(2)]
		if k := rng.IntN(3); k < 2 {
			resp := invoke(t, c, javaRegister(remoting.RegisterBroker, bodies[k]))
			require.Equal(t, remoting.Success, resp.Code, "step %d: %s", i, resp.Remark)
			last = k
		} else {
			require.Equal(t, remoting.Success, invoke(t, c, unregister).Code, "step %d", i)
			last = -1
		}
		srv.Routes().WaitIdle()
		resp := invoke(t, conns[0], lookupReq("topic-00007", remoting.CurrentVersion))
		if last < 0 {
			require.Equal(t, int32(remoting.TopicNotExist), resp.Code, "step %d: unregistered", i)
			continue
		}
		require.Equal(t, remoting.Success, resp.Code, "step %d", i)
		require.Contains(t, string(resp.Body), fmt.Sprintf(`"writeQueueNums":%d`, 8+last), "step %d", i)
	}
	require.NotZero(t, srv.Routes().Stats().UnchangedRegistrations)
}

// seededRand returns a generator seeded by RMQ_SEED, or by the clock; the
// seed is logged.
func seededRand(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("RMQ_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "RMQ_SEED")
		seed = v
	}
	t.Logf("seed %d (replay with RMQ_SEED=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, 0))
}
