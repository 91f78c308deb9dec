//go:build embedded_controller

package controller

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// sizeRun is one randomized run of builders and legacy entries against an
// FSM, for TestStateSizeNeverDrifts.
type sizeRun struct {
	t    *testing.T
	rng  *rand.Rand
	f    *testFSM
	live *fakeLive
	lim  stateLimits
}

var sizeRunNames = []string{"a", "b", "broker-" + strings.Repeat("x", 100), "\u00e9", "e\u0301", "B"}

// legacy writes an unchecked entry of an older version with odd names.
func (r *sizeRun) legacy() {
	odd := []string{"b\xff", "\x01", strings.Repeat("z", 300), "a"}
	name := odd[r.rng.IntN(len(odd))]
	id := int64(r.rng.IntN(4))
	switch r.rng.IntN(3) {
	case 0:
		r.f.apply(applyBrokerIDEvent{ClusterName: odd[r.rng.IntN(len(odd))], BrokerName: name,
			BrokerAddress: "x", NewBrokerID: id, RegisterCheckCode: strings.Repeat("k", r.rng.IntN(400))})
	case 1:
		r.f.apply(updateBrokerAddressEvent{ClusterName: "c", BrokerName: name, BrokerID: id,
			BrokerAddress: strings.Repeat("y", r.rng.IntN(400))})
	default:
		r.f.apply(cleanBrokerDataEvent{BrokerName: name, IDs: []int64{id}})
	}
}

// request builds one random request on the FSM's state and applies it.
func (r *sizeRun) request() {
	name := sizeRunNames[r.rng.IntN(len(sizeRunNames))]
	id := int64(r.rng.IntN(5))
	addr := fmt.Sprintf("10.0.%d.%d:10911", r.rng.IntN(3), id)
	_ = buildApply(r.t, r.f, func(s *state) ([]event, error) {
		var evs []event
		var err error
		switch r.rng.IntN(7) {
		case 0, 1:
			next := s.GetNextBrokerID(wire.GetNextBrokerIDRequest{BrokerName: name}).NextBrokerID
			if r.rng.IntN(3) == 0 {
				next = id
			}
			_, evs, err = s.applyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: "c", BrokerName: name,
				AppliedBrokerID: next, RegisterCheckCode: addr + ";" + strconv.Itoa(r.rng.IntN(9))}, r.lim)
		case 2:
			_, evs, err = s.registerBroker(wire.RegisterBrokerRequest{ClusterName: "c", BrokerName: name, BrokerID: id,
				BrokerAddress: addr}, r.live, r.lim)
		case 3:
			_, evs, err = s.ElectMaster(wire.ElectMasterRequest{ClusterName: "c", BrokerName: name, BrokerID: id}, r.live, electOptions{})
		case 4:
			_, evs, err = s.ElectMaster(controllerElectRequest(name), r.live, electOptions{})
		case 5:
			ids := ""
			if r.rng.IntN(2) == 0 {
				ids = strconv.FormatInt(id, 10)
			}
			_, evs, err = s.CleanBrokerData(wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: name,
				BrokerControllerIDsToClean: ids, IsCleanLivingBroker: r.rng.IntN(2) == 0}, r.live)
		default:
			ss, _ := s.SyncState(name)
			_, evs, err = s.AlterSyncStateSet(wire.AlterSyncStateSetRequest{BrokerName: name, MasterBrokerID: ss.MasterBrokerID,
				MasterEpoch: ss.MasterEpoch, SyncStateSet: wire.SyncStateSet{SyncStateSet: []int64{ss.MasterBrokerID, id},
					SyncStateSetEpoch: ss.SyncStateSetEpoch}}, r.live)
		}
		return evs, err
	})
}

// TestStateSizeNeverDrifts: random requests of every writing code
// (through the builders, with random bounds), legacy entries with names
// and values that break today's rules, elections and cleans: after every
// Apply the incrementally kept size equals a full recount; every 50 steps
// a snapshot restored into a fresh FSM (a new leader) counts the same size.
// Replay with RMQ_SEED=<seed>.
func TestStateSizeNeverDrifts(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("RMQ_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed=%d (replay with RMQ_SEED)", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	r := &sizeRun{t: t, rng: rng, f: newTestFSM(t), live: newFakeLive()}
	for step := 0; step < 2000; step++ {
		r.lim = stateLimits{BrokerSets: 1 + rng.IntN(6), BrokersPerSet: 1 + rng.IntN(6), NameLength: 1 + rng.IntN(255),
			StateBytes: int64(500 + rng.IntN(5000))}
		name := sizeRunNames[rng.IntN(len(sizeRunNames))]
		if rng.IntN(4) == 0 {
			r.live.set("c", name, int64(rng.IntN(5)), 0, 0, 0)
		} else if rng.IntN(4) == 0 {
			r.live.kill("c", name, int64(rng.IntN(5)))
		}
		if rng.IntN(10) == 0 {
			r.legacy()
		} else {
			r.request()
		}
		requireSizeExact(t, r.f)
		if step%50 == 49 {
			r.requireRestoredSameSize()
		}
	}
}

// requireRestoredSameSize restores a snapshot into a fresh FSM and
// compares its counted size with the original's kept one.
func (r *sizeRun) requireRestoredSameSize() {
	data := snapshotBytes(r.t, r.f.fsm)
	fresh := NewFSM(testLogger(r.t))
	if err := fresh.Restore(io.NopCloser(bytes.NewReader(data))); err != nil {
		r.t.Logf("restore refused (snapshot codec, another change): %v", err)
		return
	}
	var want, got int64
	r.f.fsm.read(func(s *state) { want = s.size })
	fresh.read(func(s *state) { got = s.bytes() })
	require.Equal(r.t, want, got, "a restored state counts a different size")
}
