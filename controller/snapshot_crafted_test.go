//go:build embedded_controller

package controller

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

// richState is a state holding every shape the codec must keep: the fold
// floor and tombstones, half-removed sets, byte-string and UTF-8 names
// (which sort differently by bytes and by runes), NUL, empty, boundary ids
// and epochs. It is built by Apply only.
func richState(t testing.TB) *testFSM {
	f := &testFSM{t: t, fsm: NewFSM(nil)}
	for i, name := range []string{"", "\xff", "\u00e9", "\uffff", "\U0001F600", "a\x00b", "b\xfe", "z", "\x00folded"} {
		id := []int64{1, math.MaxInt64, math.MinInt64, -1, 0, 1 << 40, 7, 2, 3}[i]
		f.apply(applyBrokerIDEvent{ClusterName: name + "c", BrokerName: name, BrokerAddress: "\xff" + name,
			NewBrokerID: id, RegisterCheckCode: name + ";1"})
		f.apply(electMasterEvent{NewMasterElected: true, BrokerName: name, NewMasterBrokerID: id})
	}
	// Fenced cleans past the bound: the tombstones fold into the floor,
	// then a few more tombstones of their own.
	for i := 0; i < maxRetiredSets+3; i++ {
		name := fmt.Sprintf("t%05d", i)
		f.apply(applyBrokerIDEvent{ClusterName: "c", BrokerName: name, BrokerAddress: "10.0.0.1:1",
			NewBrokerID: 1})
		f.apply(electMasterEvent{NewMasterElected: true, BrokerName: name, NewMasterBrokerID: 1})
		var ev []event
		var err error
		f.fsm.read(func(s *state) {
			_, ev, err = s.CleanBrokerData(wire.CleanBrokerDataRequest{BrokerName: name, IsCleanLivingBroker: true}, newFakeLive())
		})
		require.NoError(t, err)
		require.Len(t, ev, 1)
		require.NoError(t, f.apply(ev...).Err)
	}
	// A half-removed set (sync-state half gone).
	registerSet(f, "c", "half", 2)
	f.apply(cleanBrokerDataEvent{BrokerName: "half", IDs: []int64{1}})
	return f
}

var (
	richOnce  sync.Once
	richBytes []byte
	richV1    []byte
)

// richSnapshots returns the version 2 and version 1 encodings of richState.
func richSnapshots(t testing.TB) ([]byte, []byte) {
	richOnce.Do(func() {
		f := richState(t)
		richBytes = snapshotBytes(t, f.fsm)
		var err error
		richV1, err = encodeSnapshotV1(f.state())
		require.NoError(t, err)
	})
	return richBytes, richV1
}

// TestFoldedStateRoundTrip: the folded floor, the tombstones after
// it and the accounted size survive a snapshot, and a snapshot of the
// restored state is the same bytes (passed: no defect).
func TestFoldedStateRoundTrip(t *testing.T) {
	f := richState(t)
	st := f.state()
	_, ok := st.retired[floorName]
	require.True(t, ok, "the floor exists")
	require.Len(t, st.retired, 3, "the floor and two tombstones")
	g := requireRoundTrip(t, f.fsm)
	var want, got int64
	f.fsm.read(func(s *state) { want = s.size; require.Equal(t, s.scanBytes(), s.size, "kept size = counted size") })
	g.read(func(s *state) { got = s.size })
	require.Equal(t, want, got, "restored size")
	t.Logf("floor %+v, %d bytes accounted, snapshot %d bytes", st.retired[floorName], want, len(snapshotBytes(t, g)))

	// The same state in an earlier binary's version 1 snapshot: the floor
	// ("\u0000folded" in JSON) and the tombstones come back byte for byte,
	// every valid UTF-8 name too (JSON had already made invalid UTF-8
	// U+FFFD in the earlier binary's state), and it round-trips in version 2.
	v1, err := encodeSnapshotV1(st)
	require.NoError(t, err)
	require.Contains(t, string(v1), `"\u0000folded"`)
	h := NewFSM(testLogger(t))
	require.NoError(t, h.Restore(io.NopCloser(bytes.NewReader(v1))))
	h.read(func(s *state) {
		require.Equal(t, st.retired, s.retired)
		for _, name := range []string{"", "\u00e9", "\uffff", "\U0001F600", "a\x00b", "z", "\x00folded", "half"} {
			require.Equal(t, st.replicas[name], s.replicas[name], "%q", name)
			require.Equal(t, st.syncStates[name], s.syncStates[name], "%q", name)
		}
		require.Contains(t, s.replicas, "\uFFFD", "\xff as JSON wrote it")
	})
	requireRoundTrip(t, h)
}

// TestSnapshotDeterministic: equal states built in different orders
// (different map histories) give equal bytes (passed: no defect).
func TestSnapshotDeterministic(t *testing.T) {
	names := []string{"\xff", "\u00e9", "\uffff", "\U0001F600", "a", "a\x00", "", "\x00folded", "B", "b"}
	build := func(order []int) []byte {
		f := &testFSM{t: t, fsm: NewFSM(nil)}
		for _, i := range order {
			registerSet(f, "c", names[i], 3)
			f.apply(electMasterEvent{NewMasterElected: true, BrokerName: names[i], NewMasterBrokerID: 2})
			f.apply(alterSyncStateSetEvent{BrokerName: names[i], NewSyncStateSet: []int64{3, 2, 1, 2}})
		}
		return snapshotBytes(t, f.fsm)
	}
	fwd := make([]int, len(names))
	rev := make([]int, len(names))
	for i := range names {
		fwd[i], rev[i] = i, len(names)-1-i
	}
	want := build(fwd)
	for range 5 {
		require.Equal(t, want, build(rev))
		require.Equal(t, want, build(fwd))
	}
}

// uv appends uvarints.
func uv(b []byte, vs ...uint64) []byte {
	for _, v := range vs {
		b = binary.AppendUvarint(b, v)
	}
	return b
}

// craftedSnapshots are small inputs whose lengths and counts claim far
// more than they hold.
func craftedSnapshots() map[string][]byte {
	h := uv(append([]byte(nil), snapshotMagic[:]...), snapshotVersion)
	return map[string][]byte{
		"sets 2^62":           uv(bytes.Clone(h), 1<<62),
		"sets 2^31":           uv(bytes.Clone(h), 1<<31),
		"sets 2^29":           uv(bytes.Clone(h), 1<<29),
		"name 2^62":           uv(bytes.Clone(h), 1, 1<<62),
		"name 2^29":           uv(bytes.Clone(h), 1, 1<<29),
		"name 2^63 overflow":  uv(bytes.Clone(h), 1, math.MaxUint64),
		"cluster 2^29":        append(uv(bytes.Clone(h), 1, 1, 'a'), 3, 0x80, 0x80, 0x80, 0x80, 0x02),
		"brokers 2^29":        append(uv(bytes.Clone(h), 1, 0), 1, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x02),
		"sync ids 2^29":       append(uv(bytes.Clone(h), 1, 0), 2, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x02),
		"retired 2^31":        uv(bytes.Clone(h), 0, 1<<31),
		"address 2^29":        append(uv(bytes.Clone(h), 1, 0), 1, 0, 0, 1, 0, 0x80, 0x80, 0x80, 0x80, 0x02),
		"varint 11 bytes":     append(bytes.Clone(h), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
		"v1 open string":      []byte(`{"version":1,"brokerSets":[{"brokerName":"` + strings.Repeat("a", 100)),
		"v1 deep nesting":     []byte(`{"x":` + strings.Repeat("[", 100000)),
		"v1 huge number":      []byte(`{"version":1e999}`),
		"v1 brokers not list": []byte(`{"version":1,"brokerSets":[{"brokerName":"a","replicas":{"brokers":7}}]}`),
	}
}

// TestAttackSnapshotCraftedLengthsBounded: a small snapshot whose lengths
// and counts claim up to 2^62 is refused, allocating at most the one
// exact string read (16 MiB) and the codec's buffers (passed: no defect).
func TestAttackSnapshotCraftedLengthsBounded(t *testing.T) {
	var worst uint64
	for name, data := range craftedSnapshots() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		st, _, err := readSnapshot(bytes.NewReader(data), maxSnapshotBytes)
		runtime.ReadMemStats(&after)
		require.Error(t, err, name)
		require.Nil(t, st, name)
		alloc := after.TotalAlloc - before.TotalAlloc
		worst = max(worst, alloc)
		t.Logf("%-20s %7d bytes in, %9d bytes allocated: %v", name, len(data), alloc, err)
		require.LessOrEqual(t, alloc, uint64(exactStringMax+(2<<20)), name)
	}
	t.Logf("largest allocation for a crafted snapshot: %d bytes", worst)
}

// requireRestoreContract restores data into an FSM holding base: on error
// the state is base, byte for byte; on success the state re-encodes to
// bytes that restore to the same state and size, and to themselves.
func requireRestoreContract(t *testing.T, base, data []byte) {
	f := NewFSM(nil)
	require.NoError(t, f.Restore(io.NopCloser(bytes.NewReader(base))))
	if err := f.Restore(io.NopCloser(bytes.NewReader(data))); err != nil {
		require.Equal(t, base, snapshotBytes(t, f), "a failed restore changed the state: %v", err)
		return
	}
	again := snapshotBytes(t, f)
	g := NewFSM(nil)
	require.NoError(t, g.Restore(io.NopCloser(bytes.NewReader(again))), "a restored state's snapshot is refused")
	require.Equal(t, again, snapshotBytes(t, g), "canonical bytes differ")
	var want, got *state
	f.read(func(s *state) { want = s.Clone(); want.size = s.bytes() })
	g.read(func(s *state) { got = s.Clone(); got.size = s.bytes() })
	require.Equal(t, want, got)
}

// smallState is two sets, one elected, and a tombstone.
func smallState(t testing.TB) *testFSM {
	f := &testFSM{t: t, fsm: NewFSM(nil)}
	registerSet(f, "c", "broker-a", 3)
	registerSet(f, "c", "broker-b", 1)
	f.apply(electMasterEvent{NewMasterElected: true, BrokerName: "broker-a", NewMasterBrokerID: 2})
	f.apply(alterSyncStateSetEvent{BrokerName: "broker-a", NewSyncStateSet: []int64{1, 2}})
	f.apply(cleanBrokerDataEvent{BrokerName: "broker-b", IDs: []int64{1}})
	return f
}

// FuzzSnapshotRestore: raw snapshot bytes of either version, seeded with
// real encodings, truncations, bit flips and crafted lengths: Restore never
// panics, a refused snapshot leaves the FSM's state as it was, an accepted
// one round-trips.
func FuzzSnapshotRestore(f *testing.F) {
	v2, v1 := richSnapshots(f)
	small := snapshotBytes(f, smallState(f).fsm)
	for _, seed := range [][]byte{v2, v1, small, v2[:len(v2)/2], v1[:len(v1)-1], small[:len(small)-4], {}, {0x89}, []byte(`{"version":1}`)} {
		f.Add(seed)
	}
	for i := 5; i < len(small); i += 13 {
		flip := bytes.Clone(small)
		flip[i] ^= 0x40
		f.Add(flip)
	}
	for _, data := range craftedSnapshots() {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		requireRestoreContract(t, small, data)
	})
}

// TestAttackRestoreAmplification measures the heap a dense snapshot (with
// a valid checksum, as only a node's own state or a peer on the Raft port
// can give) takes once restored, per byte of snapshot: the shapes with the
// most Go values per byte, replica halves of names of up to 5 bytes and brokers with
// empty strings. Restore reads up to the 1 GiB ceiling, so this factor
// times the ceiling is the memory a corrupt-but-checksummed snapshot can
// ask for; a state within the bounds stays under 82 MiB of snapshot
// (TestAttackSnapshotUnderCeiling) (passed: no defect; figures logged).
func TestAttackRestoreAmplification(t *testing.T) {
	sets := newState()
	for i := range 100_000 {
		name := fmt.Sprintf("%x", i)
		sets.replicas[name] = &replicaInfo{ClusterName: "", BrokerName: name, Brokers: map[int64]brokerIDInfo{}}
	}
	brokers := newState()
	r := &replicaInfo{BrokerName: "b", Brokers: map[int64]brokerIDInfo{}}
	for id := range int64(100_000) {
		r.Brokers[id] = brokerIDInfo{}
	}
	brokers.replicas["b"] = r
	for name, st := range map[string]*state{"replica halves": sets, "brokers": brokers} {
		var buf bytes.Buffer
		require.NoError(t, writeSnapshot(&buf, st))
		data := buf.Bytes()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got, _, err := readSnapshot(bytes.NewReader(data), maxSnapshotBytes)
		runtime.GC()
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		ratio := float64(heap) / float64(len(data))
		t.Logf("%s: %d bytes of snapshot restore to %d bytes of heap (%.1fx)", name, len(data), heap, ratio)
		require.Less(t, ratio, 64.0)
		runtime.KeepAlive(got)
	}
}
