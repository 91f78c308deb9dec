//go:build embedded_controller

package controller

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rmqgo/nameserver/internal/monotime"
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
// then opens the gate and starts the term's expiry worker (T1, expiry.go)
// and inactive-master scan (T2). A failed
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
	q := newExpiryQueue()
	c.expiry.Store(q)
	c.hb.OpenFirstBeatWindow() // before the gate opens: no inactive event slips through
	c.gate.open(term, stop)
	interval := time.Duration(c.config().ScanInactiveMasterInterval) * time.Millisecond
	c.spawn(func() { c.runExpiry(duties, q) })
	c.spawn(func() { c.scanInactiveMasters(duties, interval) })
	c.spawn(func() { c.raiseClusterVersion(duties) })
	c.logger.Info("controller leader ready", "id", c.node.ID(), "term", term)
	c.opts.observer.LeadershipChanged(true)
}

// scanInactiveMasters is the leader's T2 loop: every interval, elect anew
// in each set whose master is inactive while a replica is alive. It skips
// the scans of the first-heartbeat window.
func (c *Controller) scanInactiveMasters(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if !c.IsReadyLeader() || c.hb.InFirstBeatWindow() {
			continue
		}
		var names []string
		c.fsm.read(func(s *state) { names = s.BrokerSetsNeedingReelect(c.hb) })
		if len(names) > 0 {
			c.logger.Info("inactive masters found by scan", "sets", len(names), "first", names[0])
		}
		for _, name := range names {
			c.goElect(name, TriggerScan)
		}
	}
}

// maxFirstBeatWindow caps the first-heartbeat window, whatever timeout a
// broker announces.
const maxFirstBeatWindow int64 = 60_000

// firstBeatWindow is a new leader's first-heartbeat window. Heartbeats are
// not replicated, so a node that has just become leader may not have heard
// from a master that beat only to the old leader: the T2 scan, which acts
// on the absence of a heartbeat, would fail a live master over. Until the
// longest heartbeat timeout of the brokers it knows
// (defaultHeartbeatTimeoutMillis when it knows none; at most
// maxFirstBeatWindow) has passed since the node became ready, the scan
// skips; a heartbeat that arrives in the window makes its broker alive as
// usual. Inactive events (T1) are not held back: each reports the loss of
// a heartbeat or connection this node did see, as on a long-time leader.
// Java's JRaft controller waits likewise before its first scan
// (RaftBrokerHeartBeatManager.scanNotActiveBroker, jRaftScanWaitTimeoutMs).
type firstBeatWindow struct {
	start   atomic.Int64 // monotime.Mono of the heartbeat clock; 0 = closed (latched)
	longest atomic.Int64 // longest timeout known when it opened
}

// OpenFirstBeatWindow opens the window now (on becoming ready leader).
func (m *heartbeatManager) OpenFirstBeatWindow() {
	m.window.longest.Store(m.longestTimeoutMillis())
	m.window.start.Store(int64(m.now()))
	m.opts.Logger.Info("first-heartbeat window opened", "millis", m.windowMillis())
}

// InFirstBeatWindow reports whether the window is open. Once it has
// passed it stays closed until the next OpenFirstBeatWindow.
func (m *heartbeatManager) InFirstBeatWindow() bool {
	start := m.window.start.Load()
	if start == 0 {
		return false
	}
	if m.now().Sub(monotime.Mono(start)) < time.Duration(m.windowMillis())*time.Millisecond {
		return true
	}
	m.window.start.CompareAndSwap(start, 0)
	return false
}

// windowMillis is the window's length: the longest timeout known at its
// opening or now.
func (m *heartbeatManager) windowMillis() int64 {
	w := max(m.window.longest.Load(), m.longestTimeoutMillis())
	if w <= 0 {
		w = defaultHeartbeatTimeoutMillis
	}
	return min(w, maxFirstBeatWindow)
}

// longestTimeoutMillis is the longest heartbeat timeout in the table, 0
// when it is empty.
func (m *heartbeatManager) longestTimeoutMillis() int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var longest int64
	for _, e := range m.live {
		longest = max(longest, e.info.TimeoutMillis)
	}
	return longest
}
