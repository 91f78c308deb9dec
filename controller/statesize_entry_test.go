//go:build embedded_controller

package controller

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// maxEntryBytes bounds one log entry whatever a stranger sends: the 1013
// entry with names at the ceiling is about 1.2 KB (docs/controller.md 2.7).
const maxEntryBytes = 2 << 10

// requireEntryBounded encodes the events a builder returned and checks the
// entry's size.
func requireEntryBounded(t *testing.T, what string, evs []event) {
	t.Helper()
	if len(evs) == 0 {
		return
	}
	data, err := encodeEntry(evs...)
	require.NoError(t, err)
	t.Logf("%s: entry of %d bytes", what, len(data))
	require.LessOrEqual(t, len(data), maxEntryBytes, "%s writes an entry of %d bytes into the Raft log", what, len(data))
}

// TestAttackEveryEntryBounded (bounds): the docs promise that
// every entry a leader writes is bounded by the field rules, so that the
// Raft log between snapshots stays small whatever is written. A stranger
// sends each writing request with its free-form fields at their largest:
// 1003 with a 1 MiB clusterName and a changed address, 1011 with a
// 100,000-id list, 1001 with 100,000 ids, 1002 and 1013 with 1 MiB names.
func TestAttackEveryEntryBounded(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 2)
	s := f.state()
	live := newFakeLive()
	huge := strings.Repeat("c", 1<<20)

	_, evs, err := s.registerBroker(wire.RegisterBrokerRequest{ClusterName: huge, BrokerName: "b", BrokerID: 1,
		BrokerAddress: "10.9.9.9:10911"}, live, defaultLimits)
	t.Logf("1003: %v", err)
	requireEntryBounded(t, "1003 with a 1 MiB clusterName", evs)

	ids := make([]string, 100_000)
	for i := range ids {
		ids[i] = strconv.Itoa(i + 1000)
	}
	_, evs, err = s.CleanBrokerData(wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "b",
		BrokerControllerIDsToClean: strings.Join(ids, ";")}, live)
	t.Logf("1011: %v", err)
	requireEntryBounded(t, "1011 with 100,000 ids", evs)

	_, evs, err = s.CleanBrokerData(wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "b",
		BrokerControllerIDsToClean: strings.Join(ids[:2000], ";") + ";2"}, live)
	require.NoError(t, err)
	requireEntryBounded(t, "1011 with 2,001 ids", evs)
	require.Equal(t, []int64{2}, evs[0].(cleanBrokerDataEvent).IDs, "only the registered id goes into the entry")
	_, evs, err = s.CleanBrokerData(wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "b",
		BrokerControllerIDsToClean: "7;8"}, live)
	require.NoError(t, err)
	require.Empty(t, evs, "no registered id: nothing to write (an empty list would clean the whole set)")

	many := make([]int64, 100_000)
	for i := range many {
		many[i] = int64(i)
	}
	_, evs, err = s.AlterSyncStateSet(wire.AlterSyncStateSetRequest{BrokerName: "b",
		SyncStateSet: wire.SyncStateSet{SyncStateSet: many}}, live)
	t.Logf("1001: %v", err)
	requireEntryBounded(t, "1001 with 100,000 ids", evs)

	_, evs, err = s.ElectMaster(wire.ElectMasterRequest{ClusterName: huge, BrokerName: "b", BrokerID: 1}, live, electOptions{})
	t.Logf("1002: %v", err)
	requireEntryBounded(t, "1002 with a 1 MiB clusterName", evs)

	_, evs, err = s.applyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: huge, BrokerName: "b", AppliedBrokerID: 3,
		RegisterCheckCode: "10.0.0.3:10911;1"}, defaultLimits)
	t.Logf("1013: %v", err)
	requireEntryBounded(t, "1013 with a 1 MiB clusterName", evs)
}
