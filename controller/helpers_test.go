//go:build embedded_controller

package controller

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/internal/monotime"
	"github.com/rmqgo/nameserver/internal/testlog"
)

// testLogger routes logs to t.Log.
func testLogger(t testing.TB) hclog.Logger { return testlog.New(t, t.Name()) }

// fakeClock is a settable Clock whose wall reading can be stepped apart
// from the time that passes (monotime.Fake): Advance lets time pass,
// StepWall steps the wall clock only.
type fakeClock struct{ *monotime.Fake }

func newFakeClock() *fakeClock {
	return &fakeClock{monotime.NewFake(time.UnixMilli(1_700_000_000_000))}
}

// fakeLive is a Liveness with explicit alive ids and live infos.
type fakeLive struct {
	alive map[liveness.Identity]bool
	infos map[liveness.Identity]liveness.Info
}

func newFakeLive() *fakeLive {
	return &fakeLive{alive: map[liveness.Identity]bool{}, infos: map[liveness.Identity]liveness.Info{}}
}

// set marks (cluster, name, id) alive with the given epoch, offset and priority.
func (f *fakeLive) set(cluster, name string, id int64, epoch int32, maxOffset int64, prio int32) *fakeLive {
	key := liveness.Identity{ClusterName: cluster, BrokerName: name, BrokerID: id}
	f.alive[key] = true
	f.infos[key] = liveness.Info{Identity: key, Epoch: epoch, MaxOffset: maxOffset, ElectionPriority: prio}
	return f
}

func (f *fakeLive) kill(cluster, name string, id int64) *fakeLive {
	f.alive[liveness.Identity{ClusterName: cluster, BrokerName: name, BrokerID: id}] = false
	return f
}

func (f *fakeLive) IsActive(c, n string, id int64) bool {
	return f.alive[liveness.Identity{ClusterName: c, BrokerName: n, BrokerID: id}]
}

func (f *fakeLive) LiveInfo(c, n string, id int64) (liveness.Info, bool) {
	info, ok := f.infos[liveness.Identity{ClusterName: c, BrokerName: n, BrokerID: id}]
	return info, ok
}

// testFSM is an FSM plus a log index, fed through the real entry encoding.
type testFSM struct {
	t     testing.TB
	fsm   *FSM
	index uint64
	log   [][]byte
}

func newTestFSM(t testing.TB) *testFSM { return &testFSM{t: t, fsm: NewFSM(testLogger(t))} }

// apply encodes events as one entry and applies it through FSM.Apply.
func (f *testFSM) apply(events ...event) *applyResult {
	f.t.Helper()
	data, err := encodeEntry(events...)
	require.NoError(f.t, err)
	f.log = append(f.log, data)
	f.index++
	res, ok := f.fsm.Apply(&raft.Log{Index: f.index, Type: raft.LogCommand, Data: data}).(*applyResult)
	require.True(f.t, ok)
	return res
}

// state returns a copy of the current state.
func (f *testFSM) state() *state {
	var c *state
	f.fsm.read(func(s *state) { c = s.Clone() })
	return c
}

// snapshotBytes persists a snapshot into memory.
func snapshotBytes(t testing.TB, f *FSM) []byte {
	t.Helper()
	snap, err := f.Snapshot()
	require.NoError(t, err)
	sink := &memSink{}
	require.NoError(t, snap.Persist(sink))
	snap.Release()
	require.True(t, sink.closed)
	return sink.buf.Bytes()
}

// memSink is an in-memory raft.SnapshotSink.
type memSink struct {
	buf       bytes.Buffer
	failWrite bool
	closed    bool
	cancelled bool
}

func (s *memSink) Write(p []byte) (int, error) {
	if s.failWrite {
		return 0, io.ErrShortWrite
	}
	return s.buf.Write(p)
}

func (s *memSink) Close() error  { s.closed = true; return nil }
func (s *memSink) ID() string    { return "mem" }
func (s *memSink) Cancel() error { s.cancelled = true; return nil }

// registerSet applies ids 1..n of broker set name in cluster c (addresses
// 10.0.0.<id>:10911) directly as events.
func registerSet(f *testFSM, c, name string, n int64) {
	for id := int64(1); id <= n; id++ {
		f.apply(applyBrokerIDEvent{ClusterName: c, BrokerName: name, BrokerAddress: addrOf(id),
			NewBrokerID: id, RegisterCheckCode: addrOf(id) + ";1"})
	}
}

func addrOf(id int64) string { return "10.0.0." + string(rune('0'+id)) + ":10911" }

// codeOf returns the Java code of err.
func codeOf(err error) int32 {
	code, _ := responseCode(err)
	return code
}
