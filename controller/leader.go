//go:build embedded_controller

package controller

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rmqgo/nameserver/raftstore"
)

// leaderGate is the leader-readiness flag (docs/controller.md section 5.1):
// the Raft term in which this node, as leader, completed a Barrier, 0 when
// not ready. Leadership is re-checked live on every use, so a lost (or lost
// and regained) leadership closes the gate at once.
type leaderGate struct {
	term   atomic.Uint64
	mu     sync.Mutex
	duties context.CancelFunc // stops the leader-only loops of the ready term
}

// ready reports whether n is leader in the term the gate was opened for.
func (g *leaderGate) ready(n *raftstore.Node) bool {
	t := g.term.Load()
	return t != 0 && n != nil && n.IsLeader() && n.Raft().CurrentTerm() == t
}

// open marks term ready and records the cancel func of its duties.
func (g *leaderGate) open(term uint64, duties context.CancelFunc) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.duties != nil {
		g.duties()
	}
	g.duties = duties
	g.term.Store(term)
}

// clear closes the gate and stops the duties; it reports whether it was open.
func (g *leaderGate) clear() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.duties != nil {
		g.duties()
		g.duties = nil
	}
	return g.term.Swap(0) != 0
}

// watchLeadership reconciles the gate with Raft's state on every LeaderCh
// signal and every leaderRecheck (LeaderCh coalesces transitions).
func (c *Controller) watchLeadership() {
	tick := time.NewTicker(leaderRecheck)
	defer tick.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.node.LeaderCh():
		case <-tick.C:
		}
		c.reconcileLeadership()
	}
}

func (c *Controller) reconcileLeadership() {
	if c.stopping.Load() {
		return
	}
	c.checkDrift()
	term := c.node.Raft().CurrentTerm()
	switch {
	case c.node.IsLeader() && c.gate.term.Load() == term:
	case c.node.IsLeader():
		c.becomeReady(term)
	case c.gate.clear():
		c.logger.Info("controller leadership lost", "term", term)
		c.opts.observer.LeadershipChanged(false)
	}
}

// becomeReady applies a barrier so the FSM holds every committed entry,
// then opens the gate and starts the term's expiry worker (the inactive-broker trigger, election_inactive.go),
// inactive-master scan and cluster-version poll. The losses this node
// saw before it led are handed to the expiry worker (handOver). A failed
// barrier is retried on the next reconcile.
func (c *Controller) becomeReady(term uint64) {
	ctx, cancel := context.WithTimeout(c.ctx, requestTimeout)
	err := c.node.Barrier(ctx)
	cancel()
	if err != nil {
		c.logger.Warn("leader barrier failed", "term", term, "error", err)
		return
	}
	if !c.node.IsLeader() || c.node.Raft().CurrentTerm() != term || c.stopping.Load() {
		return
	}
	duties, stop := context.WithCancel(c.ctx)
	q := newInactiveQueue()
	c.inactive.Store(q)
	held := c.handOver(term, stop, q)
	interval := time.Duration(c.config().ScanInactiveMasterInterval) * time.Millisecond
	c.spawn(func() { c.runInactiveQueue(duties, q) })
	c.spawn(func() { c.scanInactiveMasters(duties, interval) })
	c.spawn(func() { c.raiseClusterVersion(duties) })
	c.spawn(c.resendRecentRoleChanges)
	c.logger.Info("controller leader ready", "id", c.node.ID(), "term", term, "losses_seen_before", held,
		"view_complete_in", c.hb.ViewCompleteIn())
	c.opts.observer.LeadershipChanged(true)
}
