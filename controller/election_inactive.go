//go:build embedded_controller

package controller

import (
	"context"
	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/sched"
	"sync"
	"sync/atomic"
)

// maxPendingInactive bounds the inactive events waiting for the expiry
// worker. Every event is a heartbeat entry removed from the table, which
// holds at most maxHeartbeatEntries, and the worker drains them all at
// each pass, so the bound is only reached while the worker is held up; an
// event over it is dropped (the inactive-master scan still finds a master that is gone
// while a replica beats).
const maxPendingInactive = liveness.MaxEntries

// inactiveQueue is the pending set of inactive brokers of one ready term
// (docs/controller.md section 3.1, the inactive-broker trigger). Connection closes and heartbeat
// scans add to it; one worker (runInactiveQueue) drains it, so a storm of
// thousands of closes within a few milliseconds costs one pass: one FSM
// read for the whole batch, then one election loop per set whose master
// was lost.
type inactiveQueue struct {
	mu      sync.Mutex
	pending map[liveness.Identity]liveness.Inactive
	wake    chan struct{} // capacity 1: a pending wake-up stands for any number of adds

	added   atomic.Uint64 // events accepted
	dropped atomic.Uint64 // events refused at maxPendingInactive
	passes  atomic.Uint64 // drains that read the FSM
}

func newInactiveQueue() *inactiveQueue {
	return &inactiveQueue{pending: map[liveness.Identity]liveness.Inactive{}, wake: make(chan struct{}, 1)}
}

// add enqueues evs and wakes the worker. An event of a broker already
// pending replaces it (the table removes an entry once; a newer event of
// the same identity is a newer entry). It returns how many were dropped
// because the queue was full.
func (q *inactiveQueue) add(evs []liveness.Inactive) (dropped int) {
	q.mu.Lock()
	for _, ev := range evs {
		if _, ok := q.pending[ev.Identity]; !ok && len(q.pending) >= maxPendingInactive {
			dropped++
			continue
		}
		q.pending[ev.Identity] = ev
	}
	q.mu.Unlock()
	q.added.Add(uint64(len(evs) - dropped))
	q.dropped.Add(uint64(dropped))
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return dropped
}

// take empties the pending set and returns its events sorted by identity.
func (q *inactiveQueue) take() []liveness.Inactive {
	q.mu.Lock()
	evs := make([]liveness.Inactive, 0, len(q.pending))
	for _, ev := range q.pending {
		evs = append(evs, ev)
	}
	if len(q.pending) > 0 {
		q.pending = map[liveness.Identity]liveness.Inactive{} // a storm's map shrinks with it
	}
	q.mu.Unlock()
	liveness.SortEvents(evs)
	return evs
}

// size is the number of pending events.
func (q *inactiveQueue) size() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending)
}

// runInactiveQueue is the expiry worker of one ready term: it drains q at every
// wake-up until ctx (the term's duties) is done.
func (c *Controller) runInactiveQueue(ctx context.Context, q *inactiveQueue) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		}
		c.inactivePass(q, q.take())
	}
}

// inactivePass handles one batch of inactive events: only the ready leader
// acts, with one FSM read for the batch, and starts the election loop of
// every set whose master is among them (startElection: one loop per set).
func (c *Controller) inactivePass(q *inactiveQueue, evs []liveness.Inactive) {
	if len(evs) == 0 || c.stopping.Load() || !c.IsReadyLeader() {
		return
	}
	var masters, others []liveness.Inactive
	c.fsm.read(func(s *state) { masters, others = inactiveMasters(s, evs), storedOthers(s, evs) })
	q.passes.Add(1)
	c.recheckInFlight(others)
	if len(masters) == 0 {
		return
	}
	c.logger.Info("masters inactive, electing new ones", "sets", len(masters), "inactive_brokers", len(evs),
		"first", masters[0].Identity, "addr", masters[0].BrokerAddr, "reason", masters[0].Reason)
	for _, ev := range masters {
		c.logger.Debug("master inactive, electing a new one", "broker", ev.Identity,
			"addr", ev.BrokerAddr, "reason", ev.Reason)
		c.startElection(ev.BrokerName, TriggerInactive)
	}
}

// inactiveMasters returns the events (sorted by identity) that report the
// current master of their set, at most one per set (only the loss of
// the master triggers an election).
func inactiveMasters(s *state, evs []liveness.Inactive) []liveness.Inactive {
	var out []liveness.Inactive
	seen := map[string]bool{}
	for _, ev := range evs {
		if !seen[ev.BrokerName] && s.NeedsElectionOnInactive(ev) {
			seen[ev.BrokerName] = true
			out = append(out, ev)
		}
	}
	return out
}

// storedOthers returns the events (one per set) of stored sets whose
// master none of the set's events reports.
func storedOthers(s *state, evs []liveness.Inactive) []liveness.Inactive {
	var out []liveness.Inactive
	seen := map[string]bool{}
	for _, ev := range evs {
		if s.NeedsElectionOnInactive(ev) {
			seen[ev.BrokerName] = true
		}
	}
	for _, ev := range evs {
		if _, _, ok := s.get(ev.BrokerName); ok && !seen[ev.BrokerName] {
			seen[ev.BrokerName] = true
			out = append(out, ev)
		}
	}
	return out
}

// recheckInFlight checks again, in its set's order, an event of a stored
// set that did not report the set's master while the set has a live task:
// an entry of that task still in flight may make the broker master (an
// election built while it was alive), which the batch's read could not
// see. The check runs after the set's live tasks, as the controller's own
// election (taskKeys.own), and elects if the broker is then the master; at
// most one check per set is pending. Java orders this check likewise:
// onBrokerInactive asks the event scheduler (getReplicaInfo).
func (c *Controller) recheckInFlight(others []liveness.Inactive) {
	for _, ev := range others {
		if !c.sched.LiveOn(ev.BrokerName) {
			continue
		}
		if _, pending := c.rechecking.LoadOrStore(ev.BrokerName, struct{}{}); pending {
			continue
		}
		err := c.sched.Submit(sched.OwnElectionKeys(ev.BrokerName), func() {
			defer c.rechecking.Delete(ev.BrokerName)
			c.recheckInactive(ev)
		})
		if err != nil {
			c.rechecking.Delete(ev.BrokerName)
			c.logger.Warn("inactive broker not checked again", "broker", ev.Identity, "error", err)
		}
	}
}

// recheckInactive elects in ev's set if ev's broker is its master now.
func (c *Controller) recheckInactive(ev liveness.Inactive) {
	if !c.IsReadyLeader() {
		return
	}
	var need bool
	c.fsm.read(func(s *state) { need = s.NeedsElectionOnInactive(ev) })
	if need {
		c.logger.Info("master inactive once its set's entry applied, electing a new one", "broker", ev.Identity)
		c.startElection(ev.BrokerName, TriggerInactive)
	}
}
