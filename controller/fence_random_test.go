//go:build embedded_controller

package controller

import (
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// fenceSets are the broker sets of TestFencingRandomInterleavings.
var fenceSets = []string{"b0", "b1", "b2", "b3"}

// fenceBuilt is one command built on some state, waiting in a batch.
type fenceBuilt struct {
	set    string
	fresh  bool // built on a state holding every entry of its set
	resp   response
	events []event
	err    error
}

// TestFencingRandomInterleavings builds commands for several broker sets
// on stale copies of the state (as a leader whose earlier entries are still
// in flight would) and commits them in Raft batches of random size, stale
// commands mixed with fresh ones of other sets. Half the commands are built
// as the per-set scheduler builds them: on a state holding every entry of
// their own set (the other sets' parts may be stale) and with no entry of
// their set ahead of them in the batch; those must never be rejected. A
// rejected entry must change nothing, every result must be the one the
// entry gets when applied alone (a reference FSM takes them one at a time),
// a code-0 reply must describe the state its entry produced, and the
// invariants hold after every entry. Replay a run with RMQ_SEED=<seed>;
// RMQ_TEST_LONG=1 runs longer.
func TestFencingRandomInterleavings(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("RMQ_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed=%d (replay with RMQ_SEED=%d)", seed, seed)
	rounds := 1000
	if os.Getenv("RMQ_TEST_LONG") == "1" {
		rounds = 20000
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	r := newFenceRun(t)
	var stale []*state
	var batch []fenceBuilt
	for range rounds {
		stale = append(stale, r.f.state())
		if len(stale) > 4 {
			stale = stale[1:]
		}
		if b, ok := r.build(rng, stale, batch); ok {
			batch = append(batch, b)
		}
		if len(batch) >= 8 || (len(batch) > 0 && rng.IntN(3) == 0) {
			r.commit(batch)
			batch = nil
		}
	}
	r.commit(batch)
	t.Logf("entries applied=%d rejected=%d (fresh ones %d, all applied), %d batches of several entries, %d with a rejected entry among applied ones",
		r.applied, r.rejected, r.fresh, r.batches, r.mixed)
}

// fenceRun is the FSM under test, the one-at-a-time reference and the
// invariant checker.
type fenceRun struct {
	t                                        *testing.T
	f, ref                                   *testFSM
	inv                                      *invariantChecker
	index                                    uint64
	applied, rejected, fresh, batches, mixed int
}

func newFenceRun(t *testing.T) *fenceRun {
	r := &fenceRun{t: t, f: newTestFSM(t), ref: newTestFSM(t), inv: newInvariantChecker(t)}
	for _, name := range fenceSets {
		registerSet(r.f, "c", name, 4)
		registerSet(r.ref, "c", name, 4)
	}
	r.index = r.f.index
	return r
}

// build makes one random command of a random set: fresh (per-set order:
// its set current, no entry of its set ahead in the batch) or on one of
// the stale copies. ok is false when it appended nothing.
func (r *fenceRun) build(rng *rand.Rand, stale []*state, batch []fenceBuilt) (fenceBuilt, bool) {
	name := fenceSets[rng.IntN(len(fenceSets))]
	b := fenceBuilt{set: name}
	st := stale[rng.IntN(len(stale))]
	if rng.IntN(2) == 0 && !slices.ContainsFunc(batch, func(o fenceBuilt) bool { return o.set == name }) {
		st, b.fresh = withSetOf(st, r.f.state(), name), true
	}
	b.resp, b.events, b.err = randomCommand(rng, st, name, randomLive(rng, name))
	return b, len(b.events) > 0
}

// withSetOf is a copy of st holding name's halves as cur has them.
func withSetOf(st, cur *state, name string) *state {
	c := st.Clone()
	delete(c.replicas, name)
	delete(c.syncStates, name)
	if r, ok := cur.replicas[name]; ok {
		c.replicas[name] = r.clone()
	}
	if ss, ok := cur.syncStates[name]; ok {
		c.syncStates[name] = ss.clone()
	}
	return c
}

// commit applies batch to the FSM under test as one Raft batch and to the
// reference entry by entry, checking each entry.
func (r *fenceRun) commit(batch []fenceBuilt) {
	t := r.t
	if len(batch) == 0 {
		return
	}
	logs := make([]*raft.Log, len(batch))
	for i, b := range batch {
		data, err := encodeEntry(b.events...)
		require.NoError(t, err)
		r.index++
		logs[i] = &raft.Log{Index: r.index, Term: 1, Type: raft.LogCommand, Data: data}
	}
	got := simApplyBatch(r.f.fsm, logs)
	rejected := 0
	for i, b := range batch {
		if !r.commitOne(b, logs[i], got[i]) {
			rejected++
		}
	}
	if len(batch) > 1 {
		r.batches++
		if rejected > 0 && rejected < len(batch) {
			r.mixed++
		}
	}
	require.Equal(t, r.ref.state(), r.f.state(), "the batch leaves the state its entries give one at a time")
}

// commitOne applies one entry of the batch to the reference and checks
// it; it reports whether the entry applied.
func (r *fenceRun) commitOne(b fenceBuilt, l *raft.Log, got any) bool {
	t := r.t
	before := r.ref.state()
	want, ok := r.ref.fsm.Apply(l).(*applyResult)
	require.True(t, ok)
	after := r.ref.state()
	res, ok := got.(*applyResult)
	require.True(t, ok, "batch result %T", got)
	require.Equal(t, want.Index, res.Index)
	require.Equal(t, codeOf(want.Err), codeOf(res.Err), "entry %d: the batch and the entry alone agree (%v / %v)",
		l.Index, res.Err, want.Err)
	r.inv.observeState(after)
	if want.Err != nil {
		r.rejected++
		require.False(t, b.fresh, "entry %d of set %s built on its set's current state was rejected: %v", l.Index, b.set, want.Err)
		require.True(t, reflect.DeepEqual(before, after), "rejected entry %d changed the state", l.Index)
		return false
	}
	r.applied++
	if b.fresh {
		r.fresh++
	}
	if b.err == nil {
		requireReplyApplied(t, after, b.set, b.resp)
		if em, ok := b.resp.(wire.ElectMasterResponse); ok {
			r.inv.observeElectReply(b.set, em, nil)
		}
	}
	return true
}

// randomLive marks each of ids 1..4 of set name alive with probability 3/4.
func randomLive(rng *rand.Rand, name string) *fakeLive {
	live := newFakeLive()
	for id := int64(1); id <= 4; id++ {
		if rng.IntN(4) > 0 {
			live.set("c", name, id, rng.Int32N(3), rng.Int64N(100), 0)
		}
	}
	return live
}

// randomCommand builds one random election, alter or clean of set name on st.
func randomCommand(rng *rand.Rand, st *state, name string, live *fakeLive) (response, []event, error) {
	ss, _ := st.SyncState(name)
	id := 1 + rng.Int64N(4)
	switch rng.IntN(5) {
	case 0:
		return st.ElectMaster(adminElectRequest("c", name, id), live, electOptions{})
	case 1:
		return st.ElectMaster(controllerElectRequest(name), live, electOptions{EnableElectUncleanMaster: rng.IntN(2) == 0})
	case 2:
		return st.ElectMaster(brokerElectRequest("c", name, id), live, electOptions{})
	case 3:
		return cleanOrReapply(rng, st, name, id, live)
	}
	set := []int64{ss.MasterBrokerID}
	for other := int64(1); other <= 4; other++ {
		if rng.IntN(2) == 0 {
			set = append(set, other)
		}
	}
	return st.AlterSyncStateSet(wire.AlterSyncStateSetRequest{BrokerName: name, MasterBrokerID: ss.MasterBrokerID,
		MasterEpoch: ss.MasterEpoch, SyncStateSet: wire.SyncStateSet{SyncStateSet: set, SyncStateSetEpoch: ss.SyncStateSetEpoch}}, live)
}

// cleanOrReapply cleans id from a set of three or more ids, or applies it
// again when it is missing (a new check code), so the sets keep ids 1..4.
func cleanOrReapply(rng *rand.Rand, st *state, name string, id int64, live *fakeLive) (response, []event, error) {
	r, _ := st.Replicas(name)
	if _, held := r.Brokers[id]; !held {
		return st.ApplyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: "c", BrokerName: name, AppliedBrokerID: id,
			RegisterCheckCode: addrOf(id) + ";" + strconv.FormatInt(rng.Int64(), 10)})
	}
	if len(r.Brokers) < 3 {
		return nil, nil, nil
	}
	return st.CleanBrokerData(wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: name,
		BrokerControllerIDsToClean: strconv.FormatInt(id, 10)}, live)
}

// requireReplyApplied checks that a code-0 reply describes the state its
// entry produced.
func requireReplyApplied(t *testing.T, st *state, name string, resp response) {
	t.Helper()
	ss, _ := st.SyncState(name)
	switch r := resp.(type) {
	case wire.ElectMasterResponse:
		require.Equal(t, *r.MasterBrokerID, ss.MasterBrokerID, "elect reply names the applied master")
		require.Equal(t, *r.MasterEpoch, ss.MasterEpoch, "elect reply carries the applied master epoch")
		require.Equal(t, *r.SyncStateSetEpoch, ss.SyncStateSetEpoch)
	case wire.AlterSyncStateSetResponse:
		require.Equal(t, r.NewSyncStateSetEpoch, ss.SyncStateSetEpoch, "alter reply carries the applied epoch")
		require.True(t, slices.Equal(r.SyncStateSet.SyncStateSet, ss.SyncStateSet), "alter reply carries the applied set")
	}
}
