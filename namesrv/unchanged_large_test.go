package namesrv

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// TestLargeRegistrationsAlternateCorrectly sends registrations of 3,000
// topics (about 500 KB: written from their own slice by the client, read
// in pooled chunks by the server) in a random order of two bodies that
// differ in every topic's write queue count. Each repeat of the last body
// takes the identical path, each switch the full path, and the route
// always shows the last body's queues: a reused chunk never leaks into a
// body or its digest.
func TestLargeRegistrationsAlternateCorrectly(t *testing.T) {
	srv := startServer(t, nil)
	c := dial(t, srv)
	bodies := [2][]byte{registerBodyQ(t, 3_000, 1, 8), registerBodyQ(t, 3_000, 2, 9)}
	require.Greater(t, len(bodies[0]), 4*64<<10)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	last, unchanged := -1, uint64(0)
	for i := range 24 {
		k := rng.IntN(2)
		resp := invoke(t, c, javaRegister(remoting.RegisterBroker, bodies[k]))
		require.Equal(t, remoting.Success, resp.Code, resp.Remark)
		if k == last {
			unchanged++
		}
		last = k
		require.Equal(t, unchanged, srv.Routes().Stats().UnchangedRegistrations, "registration %d", i)
		route := invoke(t, c, lookupReq(fmt.Sprintf("topic-%05d", rng.IntN(3_000)), remoting.CurrentVersion))
		require.Contains(t, string(route.Body), fmt.Sprintf(`"writeQueueNums":%d`, 8+k), "registration %d", i)
	}
}
