//go:build embedded_controller

package controller

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller/wire"
)

// TestAttackSyncStateSetsPastStateBytes: a stranger (ACL off) fills
// controllerMaxStateBytes with sets of registered ids, heartbeats for them,
// elects each set's id 1 and alters its sync-state set to every id. Neither
// ElectMaster nor AlterSyncStateSet checks the bound, and each id of a
// sync-state set is counted: the state must still hold no more than the
// bound (refusing the alter instead would let the stranger block the
// in-sync replicas of every real broker set once the state is full).
func TestAttackSyncStateSetsPastStateBytes(t *testing.T) {
	f := newTestFSM(t)
	lim := defaultLimits
	lim.StateBytes = 64 << 10
	live := newFakeLive()
	var sets []string
	for i := 0; ; i++ {
		name := fmt.Sprintf("s%03d", i/32)
		id, err := registerNew(t, f, lim, "c", name, "a:1")
		if err != nil {
			require.Equal(t, codeOf(stateBoundError("x", "y")), codeOf(err), "filled until the bound: %v", err)
			break
		}
		live.set("c", name, id, 0, 0, 0)
		if id == 1 {
			sets = append(sets, name)
		}
	}
	full := f.state().bytes()
	for _, name := range sets {
		require.NoError(t, buildApply(t, f, func(s *state) ([]event, error) {
			_, evs, err := s.ElectMaster(wire.ElectMasterRequest{ClusterName: "c", BrokerName: name, BrokerID: 1}, live, electOptions{})
			return evs, err
		}))
		require.NoError(t, buildApply(t, f, func(s *state) ([]event, error) {
			r, _ := s.Replicas(name)
			ss, _ := s.SyncState(name)
			_, evs, err := s.AlterSyncStateSet(wire.AlterSyncStateSetRequest{BrokerName: name, MasterBrokerID: 1,
				MasterEpoch: ss.MasterEpoch, SyncStateSet: wire.SyncStateSet{SyncStateSet: r.sortedIDs(),
					SyncStateSetEpoch: ss.SyncStateSetEpoch}}, live)
			return evs, err
		}))
	}
	after := f.state().bytes()
	t.Logf("%d sets filled the bound: %d of %d bytes; after electing and altering every set: %d bytes",
		len(sets), full, lim.StateBytes, after)
	require.LessOrEqual(t, after, lim.StateBytes, "elections and alters grew the state past controllerMaxStateBytes")
	requireSizeExact(t, f)
}

// snapshotBound is the largest snapshot of a state of the given accounted
// size and tombstones: every part of the encoding is at most its accounted
// cost (a set's halves at most 81 bytes beyond their strings against 320,
// a broker at most 30 beyond its strings against 104, its sync-state slot
// included), except an id of a sync-state set that no broker holds (at
// most 10 bytes against 8) and the tombstones, which are not counted (at
// most 30 bytes beyond their name each), plus 29 bytes of header, counts
// and trailer.
func snapshotBound(accounted int64, tombstoneNames []string) int64 {
	n := accounted*5/4 + 29
	for _, name := range tombstoneNames {
		n += int64(len(name)) + 30
	}
	return n
}

// TestAttackSnapshotUnderCeiling: no state within the bounds has a snapshot
// Restore refuses. The worst case of the hard ceilings (64 MiB accounted,
// 4096 tombstones and the floor with 255-byte names) is computed from
// snapshotBound, which random request sequences (adversarial names, legacy
// entries, RMQ_SEED replays) and a state filled to the bound with the
// longest strings check (passed: no defect).
func TestAttackSnapshotUnderCeiling(t *testing.T) {
	floor := make([]string, maxRetiredSets+1)
	for i := range floor {
		floor[i] = strings.Repeat("n", config.MaxControllerNameLength)
	}
	worst := snapshotBound(config.MaxControllerStateBytes, floor)
	t.Logf("worst-case snapshot within the hard bounds: %d bytes (%.1f MiB), ceiling %d: %.1fx margin",
		worst, float64(worst)/(1<<20), maxSnapshotBytes, float64(maxSnapshotBytes)/float64(worst))
	require.Less(t, worst*8, int64(maxSnapshotBytes), "less than an eighth of the ceiling")

	check := func(f *FSM) (int64, int64) {
		t.Helper()
		var size int64
		var names []string
		f.read(func(s *state) { size, names = s.bytes(), s.retiredNames() })
		n := int64(len(snapshotBytes(t, f)))
		require.LessOrEqual(t, n, snapshotBound(size, names), "snapshot of %d bytes for %d accounted", n, size)
		return size, n
	}
	// Filled to a 1 MiB bound with the longest names, addresses and codes.
	f := newTestFSM(t)
	lim := stateLimits{BrokerSets: 100_000, BrokersPerSet: 1024, NameLength: config.MaxControllerNameLength, StateBytes: 1 << 20}
	host := strings.Repeat("h", maxAddrBytes-6)
	for i := 0; ; i++ {
		name := fmt.Sprintf("%0255d", i/8)
		addr := fmt.Sprintf("%s:%05d", host, 1+i%65000)
		if _, err := registerNew(t, f, lim, fmt.Sprintf("%0255d", i), name, addr); err != nil {
			break
		}
	}
	size, n := check(f.fsm)
	t.Logf("filled with the longest strings: %d sets, %d bytes accounted, snapshot %d bytes", len(f.state().BrokerNames()), size, n)
	require.Greater(t, size, lim.StateBytes-2048, "filled to the bound")
	check(richState(t).fsm)

	seed := uint64(rand.Int64())
	if s := os.Getenv("RMQ_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed=%d (replay: RMQ_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	for range 40 {
		g := &seqGen{c: rngChooser{rand.New(rand.NewPCG(rng.Uint64(), 0))}, f: quietFSM(t), names: adversarialNames(300), live: newFakeLive()}
		for range 100 {
			g.step()
		}
		check(g.f.fsm)
	}
}
