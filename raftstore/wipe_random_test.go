//go:build embedded_controller

package raftstore

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNewClusterFormsFromEmptyNodes: the wait for silent peers and the
// vote floor keep a new cluster live: three empty nodes started together,
// one at a time, or with one of them down, elect a leader and commit, and
// no term has two leaders.
func TestNewClusterFormsFromEmptyNodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		up   []string
		gap  time.Duration
	}{
		{"together", []string{"n0", "n1", "n2"}, 0},
		{"one at a time", []string{"n0", "n1", "n2"}, 150 * time.Millisecond},
		{"one down", []string{"n0", "n1"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newProbeCluster(t, 3, 20*time.Millisecond)
			for i, id := range tc.up {
				if i > 0 {
					time.Sleep(tc.gap) // a later start, not an assertion
				}
				c.start(id)
			}
			leader := WaitForLeader(t, c.running()...)
			require.Equal(t, int64(1), applyN(t, leader, 1))
			c.leaders.requireOneLeaderPerTerm(t)
			t.Logf("leader %s in term %d", leader.ID(), leader.raft.CurrentTerm())
		})
	}
}

func (c *probeCluster) running() []*Node {
	var out []*Node
	for _, p := range c.peers {
		if n := c.nodes[p.ID]; n != nil {
			out = append(out, n)
		}
	}
	return out
}

// TestRandomWipesNeverMakeTwoLeadersInATerm mixes new-cluster formation
// (staggered starts, a node down, a cut link) with wipes at random
// moments, and requires one leader per term on every observation. Seeds
// are printed; RMQ_WIPE_SEED=<seed> replays one; RMQ_TEST_LONG=1 runs 40
// rounds instead of 3.
func TestRandomWipesNeverMakeTwoLeadersInATerm(t *testing.T) {
	seeds := randomSeeds(t)
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Logf("seed %d (replay: RMQ_WIPE_SEED=%d)", seed, seed)
			runRandomWipes(t, rand.New(rand.NewSource(seed)))
		})
	}
}

func randomSeeds(t *testing.T) []int64 {
	if s := os.Getenv("RMQ_WIPE_SEED"); s != "" {
		seed, err := strconv.ParseInt(s, 10, 64)
		require.NoError(t, err, "RMQ_WIPE_SEED")
		return []int64{seed}
	}
	rounds := 3
	if os.Getenv("RMQ_TEST_LONG") == "1" {
		rounds = 40
	}
	base := time.Now().UnixNano()
	t.Logf("base seed %d", base)
	seeds := make([]int64, rounds)
	for i := range seeds {
		seeds[i] = base + int64(i)
	}
	return seeds
}

// runRandomWipes plays one random history and checks it as it goes.
func runRandomWipes(t *testing.T, rng *rand.Rand) {
	c := newProbeCluster(t, 3, 20*time.Millisecond)
	ids := []string{"n0", "n1", "n2"}
	for _, id := range ids {
		c.timeouts[id] = time.Duration(50+rng.Intn(150)) * time.Millisecond
	}
	down := "" // all three start, or one stays down during formation
	if rng.Intn(2) == 0 {
		down = ids[rng.Intn(3)]
	}
	if rng.Intn(2) == 0 {
		a, b := rng.Intn(3), 1+rng.Intn(2)
		c.cut(ids[a], ids[(a+b)%3])
	}
	for _, id := range ids {
		if id != down {
			c.pause(rng, 200)
			c.start(id)
		}
	}
	wipes := rng.Intn(3)
	for range wipes {
		c.pause(rng, 400)
		c.randomWipe(rng, ids)
		c.requireSafe(t)
	}
	c.pause(rng, 300)
	c.healAll(ids)
	if down != "" && rng.Intn(2) == 0 {
		c.start(down)
	}
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		c.requireSafe(t)
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("down=%q wipes=%d leaders by term: %v", down, wipes, c.leaders)
	if wipes == 0 {
		WaitForLeader(t, c.running()...)
	}
	c.requireSafe(t)
}

// pause sleeps up to ms milliseconds: a random moment, not an assertion.
func (c *probeCluster) pause(rng *rand.Rand, ms int) {
	time.Sleep(time.Duration(rng.Intn(ms)) * time.Millisecond)
}

// randomWipe kills a running node, wipes it and restarts it, sometimes
// cut off from one peer (its probes and that peer's RPCs fail).
func (c *probeCluster) randomWipe(rng *rand.Rand, ids []string) {
	running := c.running()
	if len(running) == 0 {
		return
	}
	w := running[rng.Intn(len(running))].ID()
	c.kill(w)
	c.wipe(w)
	c.pause(rng, 100)
	if rng.Intn(2) == 0 {
		other := ids[rng.Intn(3)]
		if other != w {
			c.cut(w, other)
		}
	}
	c.start(w)
	c.logger.Info("wiped and restarted", "id", w)
}

// healAll ends every cut.
func (c *probeCluster) healAll(ids []string) {
	for _, a := range ids {
		for _, b := range ids {
			if a < b {
				c.link(a, b)
			}
		}
	}
}

func (c *probeCluster) requireSafe(t *testing.T) {
	t.Helper()
	c.leaders.requireOneLeaderPerTerm(t)
}
