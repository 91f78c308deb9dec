//go:build embedded_controller

package controllertest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// Seeds of TestFaultRandomized. `make test` runs shortSeeds; long mode
// (RMQ_TEST_LONG=1) runs longSeedCount seeds from a time-based base, and
// RMQ_SEED=N replays the one seed N (in either mode).
var shortSeeds = []int64{1, 2, 3}

const (
	longSeedCount = 100
	shortTrial    = 8 * time.Second
	longTrial     = 14 * time.Second
	maxAppliedIDs = 6 // the admin applies new ids up to this id
)

// faultSeeds returns the seeds to run and the length of one trial.
func faultSeeds(t *testing.T) ([]int64, time.Duration) {
	long := os.Getenv("RMQ_TEST_LONG") == "1"
	trial := shortTrial
	if long {
		trial = longTrial
	}
	if s := os.Getenv("RMQ_SEED"); s != "" {
		seed, err := strconv.ParseInt(s, 10, 64)
		require.NoError(t, err, "RMQ_SEED")
		return []int64{seed}, trial
	}
	if !long {
		return shortSeeds, trial
	}
	base := time.Now().UnixNano() % 1_000_000_000
	seeds := make([]int64, longSeedCount)
	for i := range seeds {
		seeds[i] = base + int64(i)
	}
	return seeds, trial
}

// TestFaultRandomized runs seeded trials: fake brokers and an admin apply
// ids, register, elect, alter the sync-state set and read (1004, 1006)
// concurrently while a nemesis drawn from the seed slows disks, cuts and
// delays Raft links and kills the leader. Every reply and 1008 is checked
// (one master per epoch, master in its set, monotonic epochs, no lost
// write), then the whole history with porcupine. Replay: RMQ_SEED=N.
func TestFaultRandomized(t *testing.T) {
	seeds, trial := faultSeeds(t)
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Logf("seed=%d (replay with RMQ_SEED=%d)", seed, seed)
			runTrial(t, seed, trial)
		})
	}
}

// runTrial is one seeded trial of length d.
func runTrial(t *testing.T, seed int64, d time.Duration) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	plan := nemesisPlan(rng, d)
	fc := startFaultCluster(t, true)
	h := newHistory()
	brokers, admin := setupFaultSet(t, fc.addrs(), h)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	wait := startWorkload(ctx, seed, append(slices.Clone(brokers), admin))
	runNemesis(ctx, t, fc, plan)
	wait()
	final := finalRead(t, admin)
	for _, b := range brokers {
		b.replicaInfo()
	}
	recs := h.records()
	t.Logf("seed=%d: %d records, final state %s, controller's own elections %d", seed, len(recs), final.out, fc.triggers.n.Load())
	requireSafe(t, verify(t, h, append(brokers, admin), final, fc.triggers.n.Load()))
}

// startWorkload runs every client's random operations (drawn from seed)
// until ctx ends; the returned func waits for them.
func startWorkload(ctx context.Context, seed int64, clients []*faultClient) func() {
	var wg sync.WaitGroup
	for i, c := range clients {
		crng := rand.New(rand.NewPCG(uint64(seed), uint64(i+1)))
		wg.Go(func() { runClient(ctx, c, crng) })
	}
	return wg.Wait
}

// runClient issues random operations until ctx ends: brokers elect,
// alter (as the master they believe in), register and read; the admin
// elects a designated broker, applies new ids and reads 1006. After a
// failure or an unknown outcome the client backs off, as a broker's retry
// timer does.
func runClient(ctx context.Context, c *faultClient, rng *rand.Rand) {
	for sleepCtx(ctx, ms(rng, 20, 120)) {
		var r *record
		if c.ids == 0 {
			r = adminStep(c, rng)
		} else {
			r = brokerStep(c, rng)
		}
		if r == nil || r.unknown {
			sleepCtx(ctx, ms(rng, 200, 500))
		}
	}
}

func brokerStep(c *faultClient, rng *rand.Rand) *record {
	switch p := rng.IntN(100); {
	case p < 30:
		return c.replicaInfo()
	case p < 60:
		return c.alterAsMaster(rng)
	case p < 80:
		return c.elect()
	default:
		return c.register()
	}
}

func adminStep(c *faultClient, rng *rand.Rand) *record {
	switch p := rng.IntN(100); {
	case p < 45:
		return c.syncState()
	case p < 85:
		return c.adminElect(1 + rng.Int64N(3))
	default:
		return c.applyNewID()
	}
}

// alterAsMaster is a 1001 from a broker that believes it is master: a
// random set holding itself, under the epochs it knows; a read otherwise.
func (c *faultClient) alterAsMaster(rng *rand.Rand) *record {
	c.mu.Lock()
	last := c.last
	c.mu.Unlock()
	if last.master != c.ids {
		return c.replicaInfo()
	}
	set := []int64{c.ids}
	for id := int64(1); id <= 3; id++ {
		if id != c.ids && rng.IntN(2) == 0 {
			set = append(set, id)
		}
	}
	slices.Sort(set)
	return c.alter(last.epoch, last.ssEpoch, set...)
}

// applyNewID is the admin applying the set's next id (1012, then a
// recorded 1013), as a new broker would; ids stop at maxAppliedIDs.
func (c *faultClient) applyNewID() *record {
	ctx, cancel := c.ctx()
	defer cancel()
	leader, _ := c.b.FindLeader(ctx)
	if leader == "" {
		return nil
	}
	resp, err := c.b.Invoke(ctx, leader, remoting.ControllerGetNextBrokerID, c.ext(), nil)
	if err != nil || resp.Code != remoting.Success {
		return nil
	}
	id, err := strconv.ParseInt(resp.ExtFields["nextBrokerId"], 10, 64)
	if err != nil || id > maxAppliedIDs {
		return c.syncState()
	}
	code := c.b.Addr() + ";" + strconv.FormatInt(time.Now().UnixMilli(), 10)
	return c.do(opInput{kind: opApplyID, broker: id}, remoting.ControllerApplyBrokerID,
		c.ext("appliedBrokerId", itoa(id), "registerCheckCode", code), nil)
}
