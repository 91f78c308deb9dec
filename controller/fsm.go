//go:build embedded_controller

package controller

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/config"
)

// applyResult is the value FSM.Apply returns for a command entry (the
// raft.ApplyFuture's Response). Err is a business outcome, e.g. the broker
// set vanished or the state moved past a fenced event's preconditions
// (fence.go). An entry holding a fenced event is all-or-nothing: with Err
// set nothing was applied. In an unfenced entry (written before release 1.0.0) the events
// that could be applied were applied.
type applyResult struct {
	Index  uint64
	Events int
	Err    error
}

// FSM is the controller's raft.FSM. Apply decodes one entry and applies its
// events under the write lock; leader-side builders read the state through
// FSM.read under the read lock.
type FSM struct {
	mu     sync.RWMutex
	state  *state
	logger hclog.Logger
	legacy legacyEntries // unchecked events that break today's rules (legacy.go)
	held   *reservations // growth of the leader's entries in flight (reserve.go)
	format atomic.Int32  // newest format read; 0: this binary's (entry_format.go)
	// elected, if set, is told the set of every applied election that
	// made a master (resend.go). It must not touch the FSM.
	elected atomic.Pointer[func(brokerName string)]
}

var _ raft.FSM = (*FSM)(nil)

// NewFSM returns an FSM over an empty state. A nil logger discards logs.
func NewFSM(logger hclog.Logger) *FSM {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &FSM{state: newState(), logger: logger.Named("controller-fsm"), held: newReservations()}
}

// read runs fn with the current state under the read lock. fn must not keep
// or modify the state. A state not yet sized (a restored snapshot) is
// counted first, once, under the write lock (statesize.go).
func (f *FSM) read(fn func(s *state)) {
	f.mu.RLock()
	if !f.state.sized {
		f.mu.RUnlock()
		f.mu.Lock()
		f.state.ensureSized()
		f.mu.Unlock()
		f.mu.RLock()
	}
	defer f.mu.RUnlock()
	fn(f.state)
}

// maxInboundSnapshot bounds the snapshot a follower accepts from a
// leader (raftstore MaxSnapshotBytes): twice the size the state may ever
// reach (the hard ceiling of controllerMaxStateBytes).
const maxInboundSnapshot = 2 * config.MaxControllerStateBytes

// checkSnapshot is the raftstore CheckSnapshot of the Controller: an
// inbound snapshot Restore could not decode (or of a format newer than
// this node reads) is not kept (kept as the newest, it would stop the
// node at its next start).
func (f *FSM) checkSnapshot(r io.Reader) error {
	_, _, err := readSnapshotUpTo(r, maxInboundSnapshot, f.readsFormat())
	return err
}

// Apply implements raft.FSM. An entry that cannot be decoded means a corrupt
// log or one of a newer format: it stops (stopOn) rather than let replicas
// diverge.
func (f *FSM) Apply(l *raft.Log) interface{} {
	if l.Type != raft.LogCommand {
		return nil
	}
	events, err := f.decodeReadable(l.Data)
	if err != nil {
		f.stopOn(l.Index, err)
	}
	res := &applyResult{Index: l.Index, Events: len(events)}
	f.legacy.note(f.logger, l.Index, events)
	f.mu.Lock()
	defer f.mu.Unlock()
	if res.Err = f.applyLocked(events); res.Err != nil {
		f.logger.Warn("log entry not applied", "index", l.Index, "events", len(events), "error", res.Err)
		return res
	}
	f.noteElected(events)
	return res
}

// onElected sets the hook told of applied elections (FSM.elected).
func (f *FSM) onElected(fn func(brokerName string)) { f.elected.Store(&fn) }

// noteElected tells the hook of each election among events that made a
// master.
func (f *FSM) noteElected(events []event) {
	fn := f.elected.Load()
	if fn == nil {
		return
	}
	for _, ev := range events {
		if e, ok := ev.(electMasterEvent); ok && e.NewMasterElected {
			(*fn)(e.BrokerName)
		}
	}
}

// applyEvents applies events directly, bypassing Raft, with the semantics
// of one log entry. It is for tests and tools that replay a log without a
// cluster.
func (f *FSM) applyEvents(events ...event) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.applyLocked(events)
}

// applyLocked applies the events of one entry. Several events of which one
// is fenced are applied to a copy that replaces the state only when every
// event applied; otherwise each event applies on its own (unfenced entries).
func (f *FSM) applyLocked(events []event) error {
	defer f.held.release(events) // the growth is the state's now (or was refused)
	f.state.ensureSized()
	if len(events) > 1 && anyFenced(events) {
		next := f.state.Clone()
		next.size, next.sized = f.state.size, f.state.sized
		for _, ev := range events {
			if err := applyCounted(next, ev); err != nil {
				return err
			}
		}
		f.state = next
		return nil
	}
	var errs error
	for _, ev := range events {
		errs = errors.Join(errs, applyCounted(f.state, ev))
	}
	return errs
}

// Snapshot implements raft.FSM: it copies the state under the lock; the
// encoding happens in Persist.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return &fsmSnapshot{state: f.state.Clone()}, nil
}

// Restore implements raft.FSM: it replaces the state with the snapshot's,
// decoded as a stream of at most maxSnapshotBytes (snapshot.go). On error
// the current state is left untouched.
func (f *FSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	st, stats, err := readSnapshotUpTo(rc, maxSnapshotBytes, f.readsFormat())
	if err != nil {
		return fmt.Errorf("controller: restore snapshot: %w", err)
	}
	if stats.Duplicates > 0 {
		f.logger.Warn("snapshot named broker sets more than once; the last of each half was kept",
			"version", stats.Version, "repeated_halves", stats.Duplicates)
	}
	f.logger.Info("snapshot restored", "version", stats.Version, "bytes", stats.Bytes,
		"broker_sets", len(st.BrokerNames()), "cluster_version", st.version())
	f.mu.Lock()
	f.state = st
	f.mu.Unlock()
	return nil
}

// fsmSnapshot is a point-in-time copy of the state.
type fsmSnapshot struct{ state *state }

// Persist streams the snapshot into the sink, cancelling the sink on any
// error.
func (s *fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	if err := writeSnapshot(sink, s.state); err != nil {
		_ = sink.Cancel()
		return fmt.Errorf("controller: persist snapshot: %w", err)
	}
	return sink.Close()
}

// Release implements raft.FSMSnapshot.
func (s *fsmSnapshot) Release() {}
