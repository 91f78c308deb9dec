//go:build embedded_controller

package controller

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// failingSink passes writes to a real sink until failAfter bytes, then
// fails every write.
type failingSink struct {
	raft.SnapshotSink
	failAfter int
	written   int
	cancelled bool
	closed    bool
}

var errDiskFull = errors.New("disk full")

func (s *failingSink) Write(p []byte) (int, error) {
	if s.written+len(p) > s.failAfter {
		n := max(0, s.failAfter-s.written)
		n, _ = s.SnapshotSink.Write(p[:n])
		s.written += n
		return n, errDiskFull
	}
	n, err := s.SnapshotSink.Write(p)
	s.written += n
	return n, err
}

func (s *failingSink) Cancel() error { s.cancelled = true; return s.SnapshotSink.Cancel() }
func (s *failingSink) Close() error  { s.closed = true; return s.SnapshotSink.Close() }

// TestPersistFailsMidway: a snapshot whose sink fails after part of
// the state was written (at several points of a multi-buffer snapshot) is
// cancelled, never closed, leaves no snapshot in raft's file store and no
// goroutine behind; the next snapshot is whole and restores (passed: no
// defect).
func TestPersistFailsMidway(t *testing.T) {
	f := &testFSM{t: t, fsm: NewFSM(nil)}
	for i := range 800 {
		registerSet(f, "c", fmt.Sprintf("broker-%04d-%0200d", i, i), 3)
	}
	want := snapshotBytes(t, f.fsm)
	require.Greater(t, len(want), 2*snapshotBufSize)
	store, err := raft.NewFileSnapshotStoreWithLogger(t.TempDir(), 2, testLogger(t))
	require.NoError(t, err)
	goroutines := runtime.NumGoroutine()
	for _, at := range []int{0, 1, 5, snapshotBufSize - 1, snapshotBufSize, snapshotBufSize + 7, len(want) - 4, len(want) - 1} {
		sink, err := store.Create(raft.SnapshotVersionMax, 10, 1, raft.Configuration{}, 1, nil)
		require.NoError(t, err)
		fs := &failingSink{SnapshotSink: sink, failAfter: at}
		snap, err := f.fsm.Snapshot()
		require.NoError(t, err)
		err = snap.Persist(fs)
		snap.Release()
		require.ErrorIs(t, err, errDiskFull, "fail after %d bytes", at)
		require.True(t, fs.cancelled, "cancelled after %d bytes", at)
		require.False(t, fs.closed, "closed after %d bytes", at)
		metas, err := store.List()
		require.NoError(t, err)
		require.Empty(t, metas, "a partial snapshot is listed after %d bytes", at)
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), goroutines, "goroutines left behind")

	sink, err := store.Create(raft.SnapshotVersionMax, 11, 1, raft.Configuration{}, 1, nil)
	require.NoError(t, err)
	snap, err := f.fsm.Snapshot()
	require.NoError(t, err)
	require.NoError(t, snap.Persist(sink))
	metas, err := store.List()
	require.NoError(t, err)
	require.Len(t, metas, 1)
	require.Equal(t, int64(len(want)), metas[0].Size)
	_, rc, err := store.Open(metas[0].ID)
	require.NoError(t, err)
	g := NewFSM(nil)
	require.NoError(t, g.Restore(rc))
	require.Equal(t, want, snapshotBytes(t, g))
}

// TestPersistWhileApplying: as hashicorp/raft does, Snapshot runs
// between two Applies and Persist runs while Applies go on; every
// persisted snapshot is the state at its Snapshot call (run with -race:
// no shared map or slice between the copy and the live state). RMQ_SEED
// replays (passed: no defect).
func TestPersistWhileApplying(t *testing.T) {
	seed := uint64(rand.Int64())
	if s := os.Getenv("RMQ_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed=%d (replay: RMQ_SEED=%d)", seed, seed)
	f := NewFSM(nil)
	var fsmGoroutine sync.Mutex // raft's FSM goroutine: Apply and Snapshot in turn
	done := make(chan struct{})
	applied := make(chan int)
	go func() {
		rng := rand.New(rand.NewPCG(seed, seed))
		n := 0
		defer func() { applied <- n }()
		for index := uint64(1); ; index++ {
			select {
			case <-done:
				return
			default:
			}
			data, err := encodeEntry(randomEvent(rng))
			if err != nil {
				panic(err)
			}
			fsmGoroutine.Lock()
			f.Apply(&raft.Log{Index: index, Type: raft.LogCommand, Data: data})
			fsmGoroutine.Unlock()
			n++
		}
	}()
	for range 40 {
		fsmGoroutine.Lock()
		snap, err := f.Snapshot()
		var want *state
		f.read(func(s *state) { want = s.Clone() })
		fsmGoroutine.Unlock()
		require.NoError(t, err)
		sink := &memSink{}
		require.NoError(t, snap.Persist(sink))
		g := NewFSM(nil)
		require.NoError(t, g.Restore(io.NopCloser(bytes.NewReader(sink.buf.Bytes()))))
		var got *state
		g.read(func(s *state) { got = s.Clone() })
		require.Equal(t, want, got)
		time.Sleep(time.Millisecond)
	}
	close(done)
	t.Logf("%d entries applied during 40 snapshots", <-applied)
}

// randomEvent is an unfenced event over a few sets that changes maps and
// slices in place (ids added and dropped, sync-state sets replaced).
func randomEvent(rng *rand.Rand) event {
	name := fmt.Sprintf("b%d", rng.IntN(8))
	id := int64(1 + rng.IntN(6))
	switch rng.IntN(5) {
	case 0, 1:
		return applyBrokerIDEvent{ClusterName: "c", BrokerName: name, BrokerAddress: addrOf(id), NewBrokerID: id}
	case 2:
		return electMasterEvent{NewMasterElected: true, BrokerName: name, NewMasterBrokerID: id}
	case 3:
		return alterSyncStateSetEvent{BrokerName: name, NewSyncStateSet: []int64{id, id + 1, 1}}
	}
	return cleanBrokerDataEvent{BrokerName: name, IDs: []int64{id}}
}
