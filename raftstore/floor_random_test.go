//go:build embedded_controller

package raftstore

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRandomFloorsStayLive: nodes of an existing cluster restart
// with vote floors above raft's term (0 to 300, any of them, as a node
// that stopped between recording its floor and adopting it leaves
// them), in a random order with random timeouts and one of them
// sometimes down; then the leader is killed and restarted. Every round
// elects a leader (liveness), no term has two leaders, and no node leads
// a term up to its floor. Seeds are printed; RMQ_WIPE_SEED=<seed>
// replays one; RMQ_TEST_LONG=1 runs 40 rounds instead of 3.
func TestRandomFloorsStayLive(t *testing.T) {
	for _, seed := range randomSeeds(t) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Logf("seed %d (replay: RMQ_WIPE_SEED=%d)", seed, seed)
			runRandomFloors(t, rand.New(rand.NewSource(seed)))
		})
	}
}

func runRandomFloors(t *testing.T, rng *rand.Rand) {
	c := newProbeCluster(t, 3, 20*time.Millisecond)
	c.bootstrapStores()
	ids := []string{"n0", "n1", "n2"}
	floors := map[string]uint64{}
	for _, id := range ids {
		c.timeouts[id] = time.Duration(50+rng.Intn(150)) * time.Millisecond
		if rng.Intn(3) > 0 {
			floors[id] = uint64(rng.Intn(301))
			require.NoError(t, c.stores[id].SetUint64(keyVoteFloor, floors[id]))
		}
	}
	down := ""
	if rng.Intn(2) == 0 {
		down = ids[rng.Intn(3)]
	}
	t.Logf("floors %v, down %q", floors, down)
	for _, id := range rng.Perm(3) {
		if ids[id] != down {
			c.pause(rng, 200)
			c.start(ids[id])
		}
	}
	leader := c.awaitLeader(t)
	c.kill(leader.ID())
	if down != "" {
		c.start(down)
	}
	c.pause(rng, 300)
	c.start(leader.ID())
	c.awaitLeader(t)
	c.leaders.requireOneLeaderPerTerm(t)
	c.leaders.mu.Lock()
	defer c.leaders.mu.Unlock()
	t.Logf("leaders by term: %v", c.leaders.byTerm)
	for term, id := range c.leaders.byTerm {
		require.Greater(t, term, floors[id], "%s led term %d, up to its floor", id, term)
	}
}

// awaitLeader polls until a running node leads and commits an entry,
// and returns it. A node that raises its term to its floor may depose a
// leader just elected in a lower term: an apply that fails for it is
// tried again on the next leader.
func (c *probeCluster) awaitLeader(t *testing.T) *Node {
	var leader *Node
	require.Eventually(t, func() bool {
		leader = c.leaderOf()
		if leader == nil {
			return false
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := leader.Apply(ctx, []byte("1"))
		return err == nil
	}, 30*time.Second, 20*time.Millisecond, "no leader committed an entry")
	return leader
}
