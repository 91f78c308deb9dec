//go:build embedded_controller

package controller

import (
	"context"
	"github.com/rmqgo/nameserver/controller/liveness"
	"time"
)

// A node's view of liveness (docs/controller.md section 4.2). Brokers beat
// to every controller, so every node's heartbeat table, the followers'
// included, is kept current all along; what a table lacks, a broker absent
// from it, proves something only once the node has served long enough for
// every live broker to have reached it. From then on a new leader acts on
// its own table at once, as a long-time leader does: it scans for
// inactive masters as soon as it is ready. Before then it acts only on
// what it has seen: the losses (connection closed, heartbeat expired) of
// brokers it did hear, kept while it was a follower (holdLosses), and any
// it sees as leader. The warm-up is a fixed length: no announced timeout
// can stretch it.

// viewRecheck bounds the wait of a leader whose view is not complete yet
// between two checks of its warm-up.
const viewRecheck = 250 * time.Millisecond

// onBrokerInactive is the heartbeat manager's listener (the inactive-broker trigger). The ready
// leader hands the batch of one close or scan to the term's expiry worker
// (election_inactive.go), which reads the FSM once per batch and elects in each set
// whose master was lost. Any other node keeps the batch while its view is
// not complete (holdLosses), so that it acts on it if it leads before its
// view is. It waits only for handoverMu, held for a few map operations.
func (c *Controller) onBrokerInactive(evs []liveness.Inactive) {
	if c.stopping.Load() {
		return
	}
	c.handoverMu.Lock()
	defer c.handoverMu.Unlock()
	if !c.IsReadyLeader() {
		c.holdLosses(evs)
		return
	}
	q := c.inactive.Load()
	if q == nil {
		return
	}
	if n := q.add(evs); n > 0 {
		c.logger.Warn("inactive brokers dropped: the expiry queue is full", "dropped", n, "bound", maxPendingInactive)
	}
}

// holdLosses keeps evs while the view is not complete, and forgets every
// kept loss once it is (the table itself then tells which masters are
// gone). The kept set has the expiry queue's bound. Callers hold
// handoverMu.
func (c *Controller) holdLosses(evs []liveness.Inactive) {
	if c.hb.ViewComplete() {
		if c.held.size() > 0 {
			c.held.take()
		}
		return
	}
	if n := c.held.add(evs); n > 0 {
		c.logger.Warn("inactive brokers not kept: the set of losses seen is full", "dropped", n,
			"bound", maxPendingInactive)
	}
}

// awaitViewComplete waits until the table is a complete view of
// liveness; false if ctx ends first.
func (c *Controller) awaitViewComplete(ctx context.Context) bool {
	for {
		wait := c.hb.ViewCompleteIn()
		if wait == 0 {
			return true
		}
		timer := time.NewTimer(min(wait, viewRecheck))
		select {
		case <-ctx.Done():
			timer.Stop()
			return false
		case <-timer.C:
		}
	}
}

// forgetHeldLosses empties the kept losses once the warm-up has passed
// (Start runs it once), whether or not another loss comes to do it.
func (c *Controller) forgetHeldLosses() {
	if !c.awaitViewComplete(c.ctx) {
		return
	}
	c.handoverMu.Lock()
	defer c.handoverMu.Unlock()
	c.held.take()
}

// handOver opens the gate for term and hands the losses kept before to q,
// all under handoverMu, so that every loss goes either to the kept set
// before the gate opens or to q after. A kept loss whose broker beats
// again is dropped; all are dropped when the view is complete (the first
// scan, at once, finds every master gone). It returns how many it handed.
func (c *Controller) handOver(term uint64, stop context.CancelFunc, q *inactiveQueue) int {
	c.handoverMu.Lock()
	defer c.handoverMu.Unlock()
	c.gate.open(term, stop)
	kept := c.held.take()
	if c.hb.ViewComplete() {
		return 0
	}
	var evs []liveness.Inactive
	for _, ev := range kept {
		if !c.hb.IsActive(ev.ClusterName, ev.BrokerName, ev.BrokerID) {
			evs = append(evs, ev)
		}
	}
	if len(evs) > 0 {
		q.add(evs)
	}
	return len(evs)
}
