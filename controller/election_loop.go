//go:build embedded_controller

package controller

import (
	"sync"
	"time"

	"github.com/rmqgo/nameserver/controller/sched"
	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// onConnClose is the remoting close hook (BrokerHousekeepingService): the
// connection's part of every heartbeat entry is dropped, and the entries
// left with no live connection are removed and reported to
// onBrokerInactive. A broker that also beats on another connection keeps
// its entry.
func (c *Controller) onConnClose(conn *remoting.Conn) {
	id := ConnID(conn.ID())
	c.conns.Delete(id)
	evicted := c.hb.OnConnClose(id)
	c.opts.observer.ConnClosed(id, len(evicted))
}

// closeConn closes the connection of an expired heartbeat entry, as Java
// closes the channel.
func (c *Controller) closeConn(id ConnID) {
	if v, ok := c.conns.LoadAndDelete(id); ok {
		_ = v.(*remoting.Conn).Close()
	}
}

// startElection runs runElection on a tracked goroutine, unless the set's
// election loop is already running (runElection would drop it anyway; this
// spares the goroutine).
func (c *Controller) startElection(brokerName string, trigger ElectTrigger) {
	if c.loops.markRunning(brokerName) {
		return
	}
	c.spawn(func() { c.runElection(brokerName, trigger) })
}

// electionLoops are the sets whose election loop runs. A trigger that arrives
// while its set's loop runs is not dropped but marks the loop, which then
// runs once more: its last election may have been built before the
// trigger's cause (a master it has just made went).
type electionLoops struct {
	mu    sync.Mutex
	again map[string]bool // running set → a trigger arrived meanwhile
}

// markRunning marks name's loop if it runs and reports whether it does.
func (l *electionLoops) markRunning(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, running := l.again[name]; running {
		l.again[name] = true
		return true
	}
	return false
}

// start registers name's loop; false (and the loop marked) if it runs.
func (l *electionLoops) start(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, running := l.again[name]; running {
		l.again[name] = true
		return false
	}
	if l.again == nil {
		l.again = map[string]bool{}
	}
	l.again[name] = false
	return true
}

// finish ends name's loop unless it was marked: then it clears the mark
// and reports that the loop must run once more.
func (l *electionLoops) finish(name string, stopping bool) (more bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.again[name] && !stopping {
		l.again[name] = false
		return true
	}
	delete(l.again, name)
	return false
}

// runElection is Java's triggerElectMaster: up to electMasterMaxRetryCount
// controller-trigger attempts (≤ 3 s each) until one answers code 0. Any
// other result is retried, so a set without candidates records up to that
// many "no master" entries, each bumping masterEpoch (docs/controller.md
// sections 3.1 and 3.4). One loop per broker set runs at a time; a
// concurrent trigger makes it run once more (electionLoops). Unlike Java,
// which retries at once, the loop pauses electRetryPause between attempts,
// so that a set without candidates cannot make the leader append "no
// master" entries as fast as Raft commits them.
func (c *Controller) runElection(brokerName string, trigger ElectTrigger) {
	if !c.loops.start(brokerName) {
		return
	}
	for more := true; more; more = c.loops.finish(brokerName, c.stopping.Load()) {
		c.electionAttempts(brokerName, trigger)
	}
}

// electionAttempts is one run of runElection's attempts. The election is
// reported to the Observer before its notifications are sent (as
// handleElectMaster does), so a broker that has its 1008 finds it counted.
func (c *Controller) electionAttempts(brokerName string, trigger ElectTrigger) {
	start := time.Now()
	code := remoting.ControllerNotLeader
	var elected response
	attempts := max(c.config().ElectMasterMaxRetryCount, 1)
	for i := 0; i < attempts && !c.stopping.Load(); i++ {
		out := c.scheduleGrouped(sched.OwnElectionKeys(brokerName), c.electionBuilder(controllerElectRequest(brokerName)),
			electAttemptTimeout, c.window)
		if code, _ = responseCode(out.err); code == codeSuccess {
			elected = out.resp
			break
		}
		c.logger.Warn("controller-triggered election failed", "broker", brokerName,
			"attempt", i+1, "of", attempts, "error", out.err)
		if code == remoting.ControllerNotLeader || !c.pauseBeforeRetry(i+1 < attempts) {
			break
		}
	}
	elapsed := time.Since(start)
	c.logger.Info("controller-triggered election finished", "broker", brokerName, "trigger", trigger,
		"code", code, "elapsed", elapsed)
	c.opts.observer.ElectionFinished(trigger, code, elapsed)
	if code == codeSuccess {
		c.notifyRoleChange(elected)
	}
}

// electRetryPause is the pause between two attempts of runElection.
const electRetryPause = 500 * time.Millisecond

// pauseBeforeRetry waits electRetryPause when another attempt follows; it
// reports false if the controller stops meanwhile.
func (c *Controller) pauseBeforeRetry(more bool) bool {
	if !more {
		return true
	}
	t := time.NewTimer(electRetryPause)
	defer t.Stop()
	select {
	case <-c.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// notifyRoleChange sends NOTIFY_BROKER_ROLE_CHANGED after a code-0
// election to every member alive on this node, if notifyBrokerRoleChanged.
func (c *Controller) notifyRoleChange(resp response) {
	if !c.config().NotifyBrokerRoleChanged {
		return
	}
	em, ok := resp.(wire.ElectMasterResponse)
	if !ok {
		return
	}
	entry, ok := newRoleChangeNotifyEntry(em)
	if !ok {
		return
	}
	for _, t := range entry.Targets(c.hb) {
		c.notifier.send(t.Address, entry)
	}
}
