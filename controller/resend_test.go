//go:build embedded_controller

package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// notifiedOn returns the 1008 deliveries c's observer saw ("addr@epoch:err").
func notifiedOn(ic *inmemControllers, c *Controller) []string {
	o := ic.obs[c.Node().ID()]
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.notified)
}

// TestNewLeaderResendsRoleChangeLostWithOldLeader: the leader elects
// broker 2 after broker 1's connection closed, and dies before its 1008
// went out (here: it sends none). The new leader sends broker 2 its role
// (master epoch 2) once it is ready, where without it broker 2 would learn
// it only from its next 1004 poll.
func TestNewLeaderResendsRoleChangeLostWithOldLeader(t *testing.T) {
	ic := newCluster(t, 3, tuneRaft(steadyRaft), withProps(viewProps...))
	var all []*Controller
	for _, c := range ic.ctls {
		all = append(all, c)
	}
	leader := ic.leader(t)
	beatTo(t, 1, 10_000, all...)
	beatTo(t, 2, 10_000, all...)
	electOneWithTwo(t, leader, all)
	cfg := leader.Config()
	cfg.NotifyBrokerRoleChanged = false // the old leader's 1008s die with it
	leader.cfg.Store(cfg)

	require.Len(t, leader.hb.OnConnClose(viewConn(1)), 1)
	require.Eventually(t, func() bool {
		for _, c := range all {
			if ss, _ := syncStateOn(c); ss.MasterBrokerID != 2 || ss.MasterEpoch != 2 {
				return false
			}
		}
		return true
	}, 10*time.Second, 5*time.Millisecond, "the old leader elected broker 2 and every node applied it")
	require.Empty(t, notifiedOn(ic, leader), "the old leader sent no 1008")
	var survivors []*Controller
	for _, c := range all {
		if c != leader {
			survivors = append(survivors, c)
			c.hb.OnConnClose(viewConn(1))
		}
	}
	ic.cluster.Kill(t, leader.Node().ID())

	want := addrOf(2) + "@2:"
	ok := pollFor(15*time.Second, func() bool {
		for _, c := range survivors {
			if slices.ContainsFunc(notifiedOn(ic, c), func(s string) bool { return strings.HasPrefix(s, want) }) {
				return true
			}
		}
		return false
	})
	require.True(t, ok, "no survivor sent broker 2 its role (sent: %v, %v)",
		notifiedOn(ic, survivors[0]), notifiedOn(ic, survivors[1]))
}

// TestRecentElectionsBoundedAndForgotten: the sets remembered are at most
// maxNotifyPending (a stranger's churn of sets grows nothing more), an
// election older than resendRecent is forgotten, and a newer one of a
// remembered set replaces it.
func TestRecentElectionsBoundedAndForgotten(t *testing.T) {
	clock := newFakeClock()
	var r recentElections
	for i := range maxNotifyPending + 10 {
		r.note(fmt.Sprintf("set-%d", i), clock.Mono())
	}
	require.Len(t, r.since(clock.Mono()), maxNotifyPending)

	clock.Advance(resendRecent)
	r.note("set-0", clock.Mono())
	require.Len(t, r.since(clock.Mono()), maxNotifyPending, "within resendRecent")
	clock.Advance(time.Nanosecond)
	r.note("late", clock.Mono()) // the map is full: the old ones are forgotten first
	got := r.since(clock.Mono())
	slices.Sort(got)
	require.Equal(t, []string{"late", "set-0"}, got)
	clock.Advance(resendRecent + time.Nanosecond)
	require.Empty(t, r.since(clock.Mono()))
}
