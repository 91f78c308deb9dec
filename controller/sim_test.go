//go:build embedded_controller

package controller

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/wire"
)

// Deterministic simulation of the Controller's domain core: the command
// builders, DefaultElectPolicy, the heartbeat manager (on a fake clock) and
// the FSM, over a fake Raft log for several broker sets. Appended entries
// may commit late (after the request that built them timed out and later
// requests were built), be committed several at a time in one Raft batch
// (entries of several sets, stale ones mixed in: sim_batch_test.go), or be
// lost with the leadership (a suffix of the log, a whole batch or more).
// Builders always read the applied state, as the leader's scheduler does.
//
// Each seed runs under one ordering (simOrder):
//   - orderPerSet is the scheduler's rule: a task waits until no entry of
//     its keys (its broker sets) is in flight. Sets are independent, so no
//     fence may reject an entry; a task that may grow the state reserves
//     the growth (the FSM's reservations, released when the entry commits,
//     obsolete when the entries in flight are lost with the term), and the
//     configured state bounds hold.
//   - orderRacy is per-set order where a task may race an in-flight entry
//     of its own set (a timed-out request whose hold was given up: the
//     worst case the per-set scheduler could produce by mistake).
//   - orderNone builds whatever is in flight, across every set: the worst
//     case of all (what the single-set simulation modelled).
//
// After every commit, and on every reply (write replies when their entry
// commits, reads and 2011 at build time), the checker (sim_check_test.go)
// verifies the invariants per set.
//
// RMQ_SEED=N replays one seed; RMQ_TEST_LONG=1 runs 10,000 seeds instead
// of 500.

const (
	simCluster  = "simCluster"
	simSteps    = 300
	simMaxIDs   = 5
	simHBTimout = 3000 // ms
)

// simOrder is how the simulated scheduler orders builds against entries
// in flight.
type simOrder int

const (
	orderPerSet simOrder = iota
	orderRacy
	orderNone
)

var simOrderNames = [...]string{"per-set", "racy", "none"}

func (o simOrder) String() string { return simOrderNames[o] }

// simSet is one broker set of the run and its brokers on the fake network.
type simSet struct {
	name  string
	index int
	alive map[int64]bool
	next  int64 // next broker id a fresh broker asks for
}

// simEntry is an appended, not yet committed, log entry and the reply its
// builder computed.
type simEntry struct {
	kind  string
	set   string   // the set the request names ("" for a read of several)
	keys  []string // ordering keys the task holds
	index uint64   // log index once committed
	data  []byte
	resp  response
	req   any
	err   error
	// barrier: a read that appended an empty entry (processReadEvent)
	// and is answered once it commits.
	barrier bool
}

// simWorld is one seeded run.
type simWorld struct {
	t       testing.TB
	seed    int64
	rng     *rand.Rand
	order   simOrder
	lim     stateLimits
	clock   *fakeClock
	hb      *liveness.Table
	fsm     *FSM // the FSM under test (batches through ApplyBatch if it has one)
	seq     *FSM // the reference: the same entries applied one at a time
	index   uint64
	pending []*simEntry
	sets    []*simSet
	check   *simChecker
	trace   []string
}

func newSimWorld(t testing.TB, seed int64) *simWorld {
	clock := newFakeClock()
	rng := rand.New(rand.NewSource(seed))
	w := &simWorld{t: t, seed: seed, rng: rng, order: simOrder(rng.Intn(3)), clock: clock,
		hb: liveness.New(liveness.Options{Clock: clock}), fsm: NewFSM(nil), seq: NewFSM(nil)}
	n := 2 + rng.Intn(5)
	for i := range n {
		w.sets = append(w.sets, &simSet{name: fmt.Sprintf("simBroker-%d", i), index: i, alive: map[int64]bool{}, next: 1})
	}
	// Tight bounds, so that growth races would show: one set fewer than
	// the run names, four brokers a set, and room for about five brokers.
	w.lim = stateLimits{BrokerSets: n - 1, BrokersPerSet: 4, NameLength: defaultLimits.NameLength,
		StateBytes: int64(n-1)*costSet + 5*(costBroker+costID+60), held: w.fsm.held, term: 1}
	w.check = newSimChecker(w)
	w.logf("order %s, %d sets, limits %+v", w.order, n, w.lim)
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
	case r < 22:
		w.heartbeats()
	case r < 32:
		w.tick()
	case r < 39:
		w.toggleBroker()
	case r < 75:
		w.build()
	case r < 97:
		w.commit()
	default:
		w.lose()
	}
}

// heartbeats: every alive broker of every set beats (on its own connection).
func (w *simWorld) heartbeats() {
	for _, set := range w.sets {
		for id := int64(1); id < set.next; id++ {
			if !set.alive[id] {
				continue
			}
			bid, timeout := id, int64(simHBTimout)
			epoch, offset := int32(w.rng.Intn(5)), int64(w.rng.Intn(100))
			err := w.hb.OnHeartbeat(wire.BrokerHeartbeatRequest{ClusterName: simCluster, BrokerName: set.name,
				BrokerAddr: addrOf(id), BrokerID: &bid, Epoch: &epoch, MaxOffset: &offset,
				HeartbeatTimeoutMillis: &timeout}, liveness.ConnID(set.index*100+int(id)))
			require.NoError(w.t, err)
		}
	}
}

// tick advances the clock and expires silent brokers.
func (w *simWorld) tick() {
	w.clock.Advance(time.Duration(w.rng.Intn(2*simHBTimout)) * time.Millisecond)
	for _, ev := range w.hb.Scan() {
		w.logf("expired broker %s/%d", ev.BrokerName, ev.BrokerID)
	}
}

func (w *simWorld) toggleBroker() {
	set := w.sets[w.rng.Intn(len(w.sets))]
	if set.next == 1 {
		return
	}
	id := 1 + w.rng.Int63n(set.next-1)
	set.alive[id] = !set.alive[id]
	w.logf("broker %s/%d alive=%v", set.name, id, set.alive[id])
}

// held reports whether an entry in flight holds one of keys.
func (w *simWorld) held(keys []string) bool {
	for _, e := range w.pending {
		for _, k := range e.keys {
			for _, want := range keys {
				if k == want {
					return true
				}
			}
		}
	}
	return false
}

// mayBuild applies the run's ordering to a task holding keys.
func (w *simWorld) mayBuild(keys []string) bool {
	switch {
	case w.order == orderNone || !w.held(keys):
		return true
	case w.order == orderRacy:
		return w.rng.Intn(3) == 0 // the task races its own set's entry
	}
	return false
}

// build runs one random request's builder on the applied state; the
// ordering decides whether the task may run now (else it waits: a later
// step builds again). Its events are appended as one entry.
func (w *simWorld) build() {
	var e *simEntry
	var events []event
	set := w.sets[w.rng.Intn(len(w.sets))]
	lim := w.lim
	if w.order != orderPerSet || w.held([]string{set.name}) {
		lim.held = nil // its bounds are not checked, or its task waits: it reserves nothing
	}
	w.fsm.read(func(s *state) { e, events = w.randomRequest(s, set, lim) })
	if !w.mayBuild(e.keys) {
		w.logf("%s %q waits for its keys", e.kind, e.keys)
		return
	}
	w.check.onBuild(e)
	if len(events) == 0 && !e.barrier {
		w.logf("build %s %+v: no entry (code %d)", e.kind, e.req, codeOf(e.err))
		return
	}
	data, err := encodeEntry(events...)
	require.NoError(w.t, err)
	e.data = data
	w.pending = append(w.pending, e)
	w.logf("build %s %+v: appended (in flight %d)", e.kind, e.req, len(w.pending))
}

// lose drops a suffix of the entries in flight (the leader lost its term
// before they committed): often all of them, a whole batch or more.
func (w *simWorld) lose() {
	if len(w.pending) == 0 {
		return
	}
	n := len(w.pending)
	if w.rng.Intn(2) == 0 {
		n = 1 + w.rng.Intn(len(w.pending))
	}
	w.pending = w.pending[:len(w.pending)-n]
	w.check.stats.lost += n
	w.logf("lost %d entries in flight with the leadership", n)
	if w.order == orderPerSet {
		// The next leader's Barrier applies the entries that committed
		// before it builds anything; the reservations of the lost ones
		// are obsolete in its term.
		for len(w.pending) > 0 && !w.check.failed() {
			w.commit()
		}
		w.lim.term++
	}
}

func (w *simWorld) set(name string) *simSet {
	for _, s := range w.sets {
		if s.name == name {
			return s
		}
	}
	return nil
}

// describe renders every set of s.
func (w *simWorld) describe(s *state) string {
	out := ""
	for _, set := range w.sets {
		out += " " + set.name + simDescribe(s, set.name)
	}
	return out
}

func simDescribe(s *state, name string) string {
	r, ok1 := s.Replicas(name)
	ss, ok2 := s.SyncState(name)
	if !ok1 && !ok2 {
		return "{no set}"
	}
	return fmt.Sprintf("{ids %v next %d master %d mEpoch %d set %v ssEpoch %d}",
		r.sortedIDs(), r.NextAssignBrokerID, ss.MasterBrokerID, ss.MasterEpoch, ss.SyncStateSet, ss.SyncStateSetEpoch)
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
	var total simTotals
	for _, seed := range seeds {
		w := newSimWorld(t, seed)
		w.run()
		total.add(w.order, w.check.stats)
		if w.check.failed() {
			for _, line := range w.trace {
				t.Log(line)
			}
			t.Fatalf("seed=%d (order %s): %s", seed, w.order, w.check.violation)
		}
	}
	t.Logf("%d seeds, 0 violations:%s", len(seeds), total.String())
}
