//go:build embedded_controller

package raftstore

import (
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// DiskFaults is a fault point for tests: a slow or stuck disk under the
// Raft log. Set Config.DiskFaults and every StoreLog/StoreLogs of that node
// first waits as the faults say, then writes. Reads are never delayed. The
// zero value is ready and injects nothing; all methods are safe for
// concurrent use. It is test tooling, not a production setting.
type DiskFaults struct {
	mu      sync.Mutex
	delay   time.Duration
	paused  bool
	failed  bool
	changed chan struct{} // closed and replaced on every change
	writes  int           // log writes started
}

// SetDelay makes every log write wait d after it starts (0: no delay). A
// write already waiting is re-timed: it waits d from its own start.
func (f *DiskFaults) SetDelay(d time.Duration) {
	f.update(func() { f.delay = d })
}

// Pause makes log writes wait until Resume (or Fail).
func (f *DiskFaults) Pause() { f.update(func() { f.paused = true }) }

// Resume ends Pause; waiting writes proceed (after their delay, if any).
func (f *DiskFaults) Resume() { f.update(func() { f.paused = false }) }

// Heal clears delay and pause: the disk is healthy again.
func (f *DiskFaults) Heal() { f.update(func() { f.delay, f.paused, f.failed = 0, false, false }) }

// Fail makes every waiting and later log write fail without writing, as a
// process killed before its fsync: use it before closing a node whose
// writes are paused, so that raft can shut down. Heal clears it.
func (f *DiskFaults) Fail() { f.update(func() { f.failed = true }) }

// Writes reports how many log writes have started.
func (f *DiskFaults) Writes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writes
}

func (f *DiskFaults) update(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
	if f.changed != nil {
		close(f.changed)
		f.changed = nil
	}
}

// wait blocks a write that started at start until the faults let it
// through; it returns ErrDiskFault when the disk failed.
func (f *DiskFaults) wait(start time.Time) error {
	for {
		f.mu.Lock()
		failed, paused, left := f.failed, f.paused, time.Until(start.Add(f.delay))
		if f.changed == nil {
			f.changed = make(chan struct{})
		}
		changed := f.changed
		f.mu.Unlock()
		switch {
		case failed:
			return ErrDiskFault
		case !paused && left <= 0:
			return nil
		case paused:
			<-changed
		default:
			timer := time.NewTimer(left)
			select {
			case <-changed:
			case <-timer.C:
			}
			timer.Stop()
		}
	}
}

func (f *DiskFaults) begin() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	return time.Now()
}

// wrap returns logs behind the faults, or logs itself when f is nil.
func (f *DiskFaults) wrap(logs raft.LogStore) raft.LogStore {
	if f == nil {
		return logs
	}
	return &faultyLogStore{LogStore: logs, faults: f}
}

// faultyLogStore delays the writes of a raft.LogStore as its DiskFaults say.
type faultyLogStore struct {
	raft.LogStore
	faults *DiskFaults
}

// StoreLog implements raft.LogStore.
func (s *faultyLogStore) StoreLog(l *raft.Log) error {
	return s.StoreLogs([]*raft.Log{l})
}

// StoreLogs implements raft.LogStore.
func (s *faultyLogStore) StoreLogs(logs []*raft.Log) error {
	if err := s.faults.wait(s.faults.begin()); err != nil {
		return fmt.Errorf("store %d log entries: %w", len(logs), err)
	}
	return s.LogStore.StoreLogs(logs)
}
