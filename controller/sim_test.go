//go:build embedded_controller

package controller

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// Deterministic simulation of the Controller's domain core: the command
// builders, DefaultElectPolicy, the heartbeat manager (on a fake clock) and
// the FSM, over a fake Raft log whose appended entries may commit late
// (after the request that built them timed out and later requests were
// built), or be lost (leadership change). Builders always read the applied
// state, as the leader's scheduler does, so every entry still in flight
// makes the next build stale: the worst case the scheduler can produce.
// After every commit the checker (sim_check_test.go) verifies the
// invariants on the state and on the reply the request would get.
//
// RMQ_SEED=N replays one seed; RMQ_TEST_LONG=1 runs 10,000 seeds instead
// of 500.

const (
	simBroker   = "simBroker"
	simCluster  = "simCluster"
	simSteps    = 300
	simMaxIDs   = 5
	simHBTimout = 3000 // ms
)

// simEntry is an appended, not yet committed, log entry and the reply its
// builder computed.
type simEntry struct {
	kind string
	data []byte
	resp response
	req  any
	err  error
}

// simWorld is one seeded run.
type simWorld struct {
	t       testing.TB
	seed    int64
	rng     *rand.Rand
	clock   *fakeClock
	hb      *heartbeatManager
	fsm     *FSM
	index   uint64
	pending []simEntry
	alive   map[int64]bool
	next    int64 // next broker id a fresh broker asks for
	check   *simChecker
	trace   []string
}

func newSimWorld(t testing.TB, seed int64) *simWorld {
	clock := newFakeClock()
	w := &simWorld{t: t, seed: seed, rng: rand.New(rand.NewSource(seed)), clock: clock,
		hb: newHeartbeatManager(heartbeatOptions{Clock: clock}), fsm: NewFSM(nil),
		alive: map[int64]bool{}, next: 1}
	w.check = newSimChecker(w)
	return w
}

func (w *simWorld) logf(format string, args ...any) {
	w.trace = append(w.trace, fmt.Sprintf("%4d ", len(w.trace))+fmt.Sprintf(format, args...))
}

// run plays simSteps random steps, then commits everything in flight.
func (w *simWorld) run() {
	for i := 0; i < simSteps && !w.check.failed(); i++ {
		w.step()
	}
	for len(w.pending) > 0 && !w.check.failed() {
		w.commit()
	}
}

func (w *simWorld) step() {
	switch r := w.rng.Intn(100); {
	case r < 25:
		w.heartbeats()
	case r < 35:
		w.tick()
	case r < 42:
		w.toggleBroker()
	case r < 70:
		w.build()
	case r < 95:
		w.commit()
	default:
		w.lose()
	}
}

// heartbeats: every alive broker beats (on its own connection).
func (w *simWorld) heartbeats() {
	for id := int64(1); id < w.next; id++ {
		if !w.alive[id] {
			continue
		}
		bid, timeout := id, int64(simHBTimout)
		epoch, offset := int32(w.rng.Intn(5)), int64(w.rng.Intn(100))
		err := w.hb.OnHeartbeat(wire.BrokerHeartbeatRequest{ClusterName: simCluster, BrokerName: simBroker,
			BrokerAddr: addrOf(id), BrokerID: &bid, Epoch: &epoch, MaxOffset: &offset,
			HeartbeatTimeoutMillis: &timeout}, ConnID(id))
		require.NoError(w.t, err)
	}
}

// tick advances the clock and expires silent brokers.
func (w *simWorld) tick() {
	w.clock.Advance(time.Duration(w.rng.Intn(2*simHBTimout)) * time.Millisecond)
	for _, ev := range w.hb.Scan() {
		w.logf("expired broker %d", ev.BrokerID)
	}
}

func (w *simWorld) toggleBroker() {
	if w.next == 1 {
		return
	}
	id := 1 + w.rng.Int63n(w.next-1)
	w.alive[id] = !w.alive[id]
	w.logf("broker %d alive=%v", id, w.alive[id])
}

// build runs one random builder on the applied state and appends its events.
func (w *simWorld) build() {
	var e simEntry
	var events []event
	var err error
	w.fsm.read(func(s *state) { e, events, err = w.randomRequest(s) })
	if len(events) == 0 {
		w.logf("build %s %+v: no entry (code %d)", e.kind, e.req, codeOf(err))
		return
	}
	data, encErr := encodeEntry(events...)
	require.NoError(w.t, encErr)
	e.data = data
	w.pending = append(w.pending, e)
	w.logf("build %s %+v: appended (in flight %d)", e.kind, e.req, len(w.pending))
}

// commit applies the oldest entry in flight, as Raft commits in log order.
func (w *simWorld) commit() {
	if len(w.pending) == 0 {
		return
	}
	e := w.pending[0]
	w.pending = w.pending[1:]
	w.index++
	res, ok := w.fsm.Apply(&raft.Log{Index: w.index, Type: raft.LogCommand, Data: e.data}).(*applyResult)
	require.True(w.t, ok)
	var st *state
	w.fsm.read(func(s *state) { st = s.Clone() })
	w.logf("commit %s index %d: err=%v state=%s", e.kind, w.index, res.Err, simDescribe(st))
	w.check.afterCommit(e, res, st)
}

// lose drops the entries in flight (the leader lost its term before they
// committed).
func (w *simWorld) lose() {
	if len(w.pending) == 0 {
		return
	}
	n := 1 + w.rng.Intn(len(w.pending))
	w.pending = w.pending[:len(w.pending)-n]
	w.logf("lost %d entries in flight", n)
}

func simDescribe(s *state) string {
	r, ok1 := s.Replicas(simBroker)
	ss, ok2 := s.SyncState(simBroker)
	if !ok1 && !ok2 {
		return "{no set}"
	}
	ids := []int64{}
	for id := range r.Brokers {
		ids = append(ids, id)
	}
	return fmt.Sprintf("{ids %v next %d master %d mEpoch %d set %v ssEpoch %d}",
		wire.NormalizeIDs(ids), r.NextAssignBrokerID, ss.MasterBrokerID, ss.MasterEpoch, ss.SyncStateSet, ss.SyncStateSetEpoch)
}

// simSeeds returns the seeds to run: RMQ_SEED alone, else n from a base.
func simSeeds(t *testing.T, n int) []int64 {
	if v := os.Getenv("RMQ_SEED"); v != "" {
		seed, err := strconv.ParseInt(v, 10, 64)
		require.NoError(t, err, "RMQ_SEED")
		return []int64{seed}
	}
	if os.Getenv("RMQ_TEST_LONG") != "" {
		n = 10000
	}
	base := time.Now().UnixNano()
	seeds := make([]int64, n)
	for i := range seeds {
		seeds[i] = base + int64(i)
	}
	return seeds
}

// TestSimulatedControllerSafety runs the simulation for many seeds and
// prints the trace of the first failing one.
func TestSimulatedControllerSafety(t *testing.T) {
	seeds := simSeeds(t, 500)
	t.Logf("simulating %d seeds from seed=%d (replay one with RMQ_SEED=N)", len(seeds), seeds[0])
	commits, rejected := 0, 0
	for _, seed := range seeds {
		w := newSimWorld(t, seed)
		w.run()
		commits += w.check.commits
		rejected += w.check.rejected
		if w.check.failed() {
			for _, line := range w.trace {
				t.Log(line)
			}
			t.Fatalf("seed=%d: %s", seed, w.check.violation)
		}
	}
	t.Logf("%d seeds: %d entries committed, %d rejected by Apply's preconditions", len(seeds), commits, rejected)
}
