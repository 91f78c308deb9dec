//go:build embedded_controller

package controller

import (
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// TestFencingRandomInterleavings builds commands on stale copies of the
// state (as a leader whose earlier entries are still in flight would) and
// applies them in random order. Whatever the order, a command either
// applies as its reply says or is rejected, and the invariants hold.
// Replay a run with RMQ_SEED=<seed>; RMQ_TEST_LONG=1 runs longer.
func TestFencingRandomInterleavings(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("RMQ_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed=%d", seed)
	rounds := 1000
	if os.Getenv("RMQ_TEST_LONG") == "1" {
		rounds = 20000
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	f := newTestFSM(t)
	registerSet(f, "c", "b", 4)
	inv := newInvariantChecker(t)
	var stale []*state
	applied, rejected := 0, 0
	for range rounds {
		stale = append(stale, f.state())
		if len(stale) > 4 {
			stale = stale[1:]
		}
		st := stale[rng.IntN(len(stale))]
		live := randomLive(rng)
		resp, events, err := randomCommand(rng, st, live)
		if len(events) == 0 {
			continue
		}
		res := f.apply(events...)
		if res.Err != nil {
			rejected++
		} else {
			applied++
		}
		inv.observeState(f.state())
		if res.Err == nil && err == nil {
			requireReplyApplied(t, f.state(), resp)
			if em, ok := resp.(wire.ElectMasterResponse); ok {
				inv.observeElectReply("b", em, nil)
			}
		}
	}
	t.Logf("entries applied=%d rejected=%d", applied, rejected)
}

// randomLive marks each of ids 1..4 alive with probability 3/4.
func randomLive(rng *rand.Rand) *fakeLive {
	live := newFakeLive()
	for id := int64(1); id <= 4; id++ {
		if rng.IntN(4) > 0 {
			live.set("c", "b", id, rng.Int32N(3), rng.Int64N(100), 0)
		}
	}
	return live
}

// randomCommand builds one random election or alter on st.
func randomCommand(rng *rand.Rand, st *state, live *fakeLive) (response, []event, error) {
	ss, _ := st.SyncState("b")
	id := 1 + rng.Int64N(4)
	switch rng.IntN(4) {
	case 0:
		return st.ElectMaster(adminTriggerElect("c", "b", id), live, electOptions{})
	case 1:
		return st.ElectMaster(controllerTriggerElect("b"), live, electOptions{EnableElectUncleanMaster: rng.IntN(2) == 0})
	case 2:
		return st.ElectMaster(brokerTriggerElect("c", "b", id), live, electOptions{})
	}
	set := []int64{ss.MasterBrokerID}
	for other := int64(1); other <= 4; other++ {
		if rng.IntN(2) == 0 {
			set = append(set, other)
		}
	}
	return st.AlterSyncStateSet(wire.AlterSyncStateSetRequest{BrokerName: "b", MasterBrokerID: ss.MasterBrokerID,
		MasterEpoch: ss.MasterEpoch, SyncStateSet: wire.SyncStateSet{SyncStateSet: set, SyncStateSetEpoch: ss.SyncStateSetEpoch}}, live)
}

// requireReplyApplied checks that a code-0 reply describes the state its
// entry produced.
func requireReplyApplied(t *testing.T, st *state, resp response) {
	t.Helper()
	ss, _ := st.SyncState("b")
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
