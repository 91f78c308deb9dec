//go:build embedded_controller

package controller

import (
	"reflect"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// Commits of the simulation. Raft commits in log order, often several
// entries at once (hashicorp/raft groups concurrent Applies into one
// batch: BatchApplyCh, MaxAppendEntries); the entries of a batch may
// belong to several sets, and stale ones may sit among them. The FSM under
// test takes a batch through ApplyBatch when it implements
// raft.BatchingFSM, else entry by entry as raft.Apply does; a reference
// FSM takes the same entries one at a time. Every entry's result must be
// the reference's, a rejected entry must change nothing (so its neighbours
// apply exactly as if it were absent), and both states must agree after
// the batch.

// commit applies the oldest entries in flight: one, or (half the time) a
// random number of them as one Raft batch.
func (w *simWorld) commit() {
	if len(w.pending) == 0 {
		return
	}
	n := 1
	if w.rng.Intn(2) == 0 {
		n = 1 + w.rng.Intn(len(w.pending))
	}
	batch := append([]*simEntry(nil), w.pending[:n]...)
	w.pending = w.pending[n:]
	logs := make([]*raft.Log, n)
	for i, e := range batch {
		w.index++
		e.index = w.index
		logs[i] = &raft.Log{Index: w.index, Term: 1, Type: raft.LogCommand, Data: e.data}
	}
	got := simApplyBatch(w.fsm, logs)
	require.Len(w.t, got, n, "one result per entry of the batch")
	rejected := 0
	for i, e := range batch {
		if w.commitOne(e, logs[i], got[i]) {
			rejected++
		}
	}
	w.check.noteBatch(n, rejected)
	w.check.sameState(w.fsm, w.seq)
}

// commitOne applies one entry of the batch to the reference, compares the
// results and checks the entry. It reports whether the entry was rejected.
func (w *simWorld) commitOne(e *simEntry, l *raft.Log, got any) bool {
	before := simClone(w.seq)
	want, ok := w.seq.Apply(l).(*applyResult)
	require.True(w.t, ok)
	after := simClone(w.seq)
	w.logf("commit %s index %d: err=%v state=%s", e.kind, l.Index, want.Err, w.describe(after))
	w.check.sameResult(e, got, want)
	if want.Err != nil && !reflect.DeepEqual(before, after) {
		w.check.fail("entry %d (%s) was rejected (%v) but changed the state: %s", l.Index, e.kind, want.Err,
			w.describe(after))
	}
	w.check.afterCommit(e, want, after)
	return want.Err != nil
}

// simApplyBatch hands the batch to f as Raft would.
func simApplyBatch(f *FSM, logs []*raft.Log) []any {
	if b, ok := any(f).(raft.BatchingFSM); ok {
		return b.ApplyBatch(logs)
	}
	out := make([]any, len(logs))
	for i, l := range logs {
		out[i] = f.Apply(l)
	}
	return out
}

func simClone(f *FSM) *state {
	var c *state
	f.read(func(s *state) { c = s.Clone() })
	return c
}
