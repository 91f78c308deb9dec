//go:build embedded_controller

package raftstore

import (
	"io"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// counterFSM adds each command (a decimal integer) to a counter and
// answers with the new value.
type counterFSM struct {
	mu       sync.Mutex
	value    int64
	restores int
}

func newCounter(string) raft.FSM { return &counterFSM{} }

func (f *counterFSM) Apply(l *raft.Log) interface{} {
	delta, err := strconv.ParseInt(string(l.Data), 10, 64)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.value += delta
	return f.value
}

func (f *counterFSM) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return counterSnapshot(f.value), nil
}

func (f *counterFSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return err
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.value, f.restores = v, f.restores+1
	return nil
}

// Value returns the counter.
func (f *counterFSM) Value() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.value
}

// Restores returns how many snapshots were restored.
func (f *counterFSM) Restores() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.restores
}

type counterSnapshot int64

func (s counterSnapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write([]byte(strconv.FormatInt(int64(s), 10))); err != nil {
		_ = sink.Cancel()
		return err
	}
	return sink.Close()
}

func (counterSnapshot) Release() {}

// eventuallyValue waits until fsm's counter equals want.
func eventuallyValue(t *testing.T, fsm *counterFSM, want int64) {
	t.Helper()
	require.Eventually(t, func() bool { return fsm.Value() == want },
		10*time.Second, 10*time.Millisecond, "counter stuck at %d, want %d", fsm.Value(), want)
}
