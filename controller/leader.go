//go:build embedded_controller

package controller

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rmqgo/nameserver/raftstore"
)

// leaderGate is the leader-readiness flag (reference §2.4): the Raft term
// in which this node, as leader, completed a Barrier, 0 when not ready.
// Leadership is re-checked live on every use, so a lost (or lost and
// regained) leadership closes the gate at once.
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
// then opens the gate and starts the inactive-master scan (T2). A failed
// barrier is retried on the next reconcile.
func (c *Controller) becomeReady(term uint64) {
	ctx, cancel := context.WithTimeout(c.ctx, RequestTimeout)
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
	c.gate.open(term, stop)
	interval := time.Duration(c.config().ScanInactiveMasterInterval) * time.Millisecond
	c.spawn(func() { c.scanInactiveMasters(duties, interval) })
	c.logger.Info("controller leader ready", "id", c.node.ID(), "term", term)
	c.opts.observer.LeadershipChanged(true)
}

// scanInactiveMasters is the leader's T2 loop: every interval, elect anew
// in each set whose master is inactive while a replica is alive.
func (c *Controller) scanInactiveMasters(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if !c.IsReadyLeader() {
			continue
		}
		var names []string
		c.fsm.Read(func(s *State) { names = s.BrokerSetsNeedingReelect(c.hb) })
		for _, name := range names {
			c.logger.Info("inactive master found by scan", "broker", name)
			c.goElect(name, TriggerScan)
		}
	}
}
