//go:build embedded_controller

package controller

import "sync"

// Reservations keep the leader's bounds of the replicated state
// (controllerMaxBrokerSets, controllerMaxStateBytes) exact while the
// entries of different broker sets are in flight together
// (docs/controller.md section 5.2). A builder's bound check (checkRoom)
// counts what the applied state holds plus what the entries in flight
// have reserved, and reserves its own growth in the same step, under one
// lock; the reservation is dropped when its entry is applied (FSM.Apply,
// under the FSM's write lock, so no check sees the growth twice or not at
// all) or when the entry certainly never reached the log (execute). An
// entry whose fate went with the leadership keeps its reservation until
// the term changes: the next leader's Barrier applies every committed
// entry before its gate opens, so the reservations of an earlier term are
// obsolete once a check of a later term runs, and it drops them. A
// request that grows nothing reserves nothing.
//
// A set has at most one entry in flight (its key, package sched), so the
// reservations are kept per set name and bounded by the live tasks.

// growth is what one entry may add to the counted state.
type growth struct {
	sets  int
	bytes int64
}

// reservations are the growth reserved by the leader's entries in flight.
type reservations struct {
	mu    sync.Mutex
	term  uint64            // the leader term of the reservations
	total growth            // the sum of held
	held  map[string]growth // by broker set
}

func newReservations() *reservations { return &reservations{held: map[string]growth{}} }

// reserve runs check with the growth reserved in term by other sets'
// entries and, when it passes, reserves g for set name. A nil receiver
// reserves nothing (Apply's checks and tests). Term 0 (the gate closed
// since the task started) is answered 2007.
func (r *reservations) reserve(term uint64, name string, g growth, check func(others growth) error) error {
	if r == nil {
		return check(growth{})
	}
	if term == 0 {
		return errNotLeader
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if term != r.term {
		clear(r.held)
		r.total, r.term = growth{}, term
	}
	r.dropLocked(name)
	if err := check(r.total); err != nil {
		return err
	}
	if g != (growth{}) {
		r.held[name] = g
		r.total.sets += g.sets
		r.total.bytes += g.bytes
	}
	return nil
}

// release drops the reservation of each set an entry's events change:
// the entry was applied, or never appended.
func (r *reservations) release(events []event) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ev := range events {
		if name, ok := eventSetName(ev); ok {
			r.dropLocked(name)
		}
	}
}

func (r *reservations) dropLocked(name string) {
	if g, ok := r.held[name]; ok {
		delete(r.held, name)
		r.total.sets -= g.sets
		r.total.bytes -= g.bytes
	}
}

// reserved returns the term, the total and the number of reservations.
func (r *reservations) reserved() (uint64, growth, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.term, r.total, len(r.held)
}
