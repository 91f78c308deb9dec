//go:build embedded_controller

package controller

import (
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/controller/sched"
	"github.com/rmqgo/nameserver/raftstore"
)

// Running a leader-side command: build it from the FSM, append its events
// as one entry, answer from the applied result (docs/controller.md
// sections 2.4 and 5.2). The scheduler (package sched) decides when.

// outcome is a scheduled command's result. resp is nil when the command
// did not run or its events could not be appended.
type outcome struct {
	resp response
	err  error
}

// errRequestTimeout is the code-1 reply of a request that waited too long.
var errRequestTimeout = &domainError{Kind: errSystem,
	Remark: "java.util.concurrent.TimeoutException: the controller did not finish the request in time"}

// scheduleOn runs build on the scheduler with keys if this node is the
// ready leader and waits at most timeout for its outcome (gate → 2007,
// scheduler full → 2, timeout → 1). A timed-out task still runs to its end
// on the scheduler, holding its keys.
func (c *Controller) scheduleOn(keys sched.Keys, build buildFunc, timeout time.Duration) outcome {
	return c.scheduleGrouped(keys, build, timeout, nil)
}

// scheduleGrouped is scheduleOn whose task, once built, waits for the end
// of window w (nil: none) before it appends (election_window.go).
func (c *Controller) scheduleGrouped(keys sched.Keys, build buildFunc, timeout time.Duration, w *electionWindow) outcome {
	if !c.IsReadyLeader() {
		return outcome{err: errNotLeader}
	}
	deadline := time.Now().Add(timeout)
	ch := make(chan outcome, 1)
	if err := c.sched.Submit(keys, func() { ch <- c.execute(build, deadline, w) }); err != nil {
		return outcome{err: schedError(err)}
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case out := <-ch:
		return out
	case <-c.sched.Done():
		return outcome{err: errNotLeader}
	case <-timer.C:
		return outcome{err: errRequestTimeout}
	}
}

// schedError maps a refusal of the scheduler to the domain error answered:
// stopped → errNotLeader, full → errSystemBusy.
func schedError(err error) error {
	switch {
	case errors.Is(err, sched.ErrStopped):
		return errNotLeader
	case errors.Is(err, sched.ErrFull):
		return errSystemBusy
	}
	return err
}

// execute runs as a scheduler task: build from the state, append the events
// as one entry and wait until it is applied or lost. The outcome is the
// applied result: a rejection by Apply (fence.go) replaces the builder's
// response. Reads append nothing unless processReadEvent is set, which
// appends an empty entry (a read barrier). A command with events waits for
// the end of window w (nil: none) before it appends them.
func (c *Controller) execute(build buildFunc, deadline time.Time, w *electionWindow) (res outcome) {
	defer func() {
		if r := recover(); r != nil {
			c.logger.Error("leader command panicked", "panic", r)
			res = outcome{err: &domainError{Kind: errSystem, Remark: fmt.Sprint(r)}}
		}
	}()
	if !c.IsReadyLeader() {
		return outcome{err: errNotLeader}
	}
	if time.Now().After(deadline) {
		return outcome{err: errRequestTimeout}
	}
	var out outcome
	var events []event
	c.fsm.read(func(s *state) { out.resp, events, out.err = build(s) })
	if len(events) == 0 && !c.config().ProcessReadEvent {
		return out
	}
	if w != nil && len(events) > 0 {
		w.wait(c.ctx.Done())
	}
	if err := c.appendEvents(events, deadline); err != nil {
		return outcome{err: err}
	}
	return out
}

// appendEvents replicates events as one log entry and waits, past the
// deadline if need be, until this node applied it or the entry is lost
// (leadership lost, shutdown); the deadline only bounds the enqueue. Log
// failures become code 1 (Java cancels the future); a rejection by Apply is
// returned as is. The growth the builder reserved is released by Apply,
// here when the entry never reached the log, else when the term changes
// (reserve.go).
func (c *Controller) appendEvents(events []event, deadline time.Time) error {
	data, err := encodeEntry(events...)
	if err != nil {
		c.fsm.held.release(events)
		return &domainError{Kind: errSystem, Remark: err.Error()}
	}
	res, err := c.node.ApplyWait(c.ctx, data, time.Until(deadline))
	if err != nil {
		if neverAppended(err) {
			c.fsm.held.release(events)
		}
		c.logger.Warn("append to raft log failed", "events", len(events), "error", err)
		if errors.Is(err, raftstore.ErrTimeout) {
			return errRequestTimeout
		}
		return &domainError{Kind: errSystem, Remark: "append to the controller log failed: " + err.Error()}
	}
	if r, ok := res.(*applyResult); ok && r.Err != nil {
		c.logger.Warn("log entry rejected by apply", "index", r.Index, "error", r.Err)
		return r.Err
	}
	return nil
}

// neverAppended reports whether an ApplyWait error means the entry never
// reached the log (it could not be queued, or this node was no leader).
// After any other error (leadership lost, shutdown) the entry may still
// commit.
func neverAppended(err error) bool {
	return errors.Is(err, raft.ErrEnqueueTimeout) ||
		(errors.Is(err, raft.ErrNotLeader) && !errors.Is(err, raft.ErrLeadershipLost))
}
