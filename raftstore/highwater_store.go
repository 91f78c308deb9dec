//go:build embedded_controller

package raftstore

import (
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// markedLogStore raises the high-water mark after each successful write
// of raft's log and lowers it before a leader's replacement of a suffix.
type markedLogStore struct {
	raft.LogStore
	hw     *highWater
	logger hclog.Logger
}

// StoreLog implements raft.LogStore.
func (s *markedLogStore) StoreLog(l *raft.Log) error {
	return s.StoreLogs([]*raft.Log{l})
}

// StoreLogs implements raft.LogStore: the mark follows once the entries
// are durable. A mark that cannot be written is logged, not returned: the
// entries are stored, and the mark only ever trails them.
func (s *markedLogStore) StoreLogs(logs []*raft.Log) error {
	if err := s.LogStore.StoreLogs(logs); err != nil || len(logs) == 0 {
		return err
	}
	last := logs[len(logs)-1]
	p := position{last.Term, last.Index}
	if !s.hw.current().before(p) {
		return nil
	}
	if err := s.hw.set(p, false); err != nil {
		s.logger.Error("cannot raise the acknowledged high-water mark", "error", err)
	}
	return nil
}

// DeleteRange implements raft.LogStore. Raft deletes a range holding its
// last entry only when a leader replaces a conflicting suffix (compaction
// keeps at least TrailingLogs >= 1 entries): the mark then drops to the
// entry before the range, or to zero when that one is in a snapshot, and
// is fsync'd before any entry goes, so it is never ahead of the log.
func (s *markedLogStore) DeleteRange(min, max uint64) error {
	mark := s.hw.current()
	if min <= mark.index && mark.index <= max {
		var lower position
		var prev raft.Log
		if min > 1 && s.LogStore.GetLog(min-1, &prev) == nil {
			lower = position{prev.Term, prev.Index}
		}
		if err := s.hw.set(lower, true); err != nil {
			return err
		}
	}
	return s.LogStore.DeleteRange(min, max)
}
