//go:build embedded_controller

package controllertest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// porcupineTimeout bounds one linearizability check; beyond it the
// verdict is Unknown (logged, not a failure).
const porcupineTimeout = 60 * time.Second

// The controller's own elections (T1/T2) are not in the history: each may
// have appended up to electMasterMaxRetryCount (3) entries, which the model
// takes as pending operations; beyond maxHiddenElections the search is too
// wide and porcupine is skipped (logged).
const (
	attemptsPerElection = 3
	maxHiddenElections  = 9
)

// setupFaultSet brings faultSet to the state the stale-build schedules start from:
// three brokers registered and beating (ids 1, 2, 3 unless a leader change
// made an attempt fail), the first one master, the sync-state set all
// three. Requests that fail are retried (and recorded). It returns the
// brokers and an admin client.
func setupFaultSet(t *testing.T, ctls []string, h *history) ([]*faultClient, *faultClient) {
	t.Helper()
	var brokers []*faultClient
	next := int64(1)
	for i := 1; i <= 3; i++ {
		c := newFaultClient(t, h, i, ctls)
		retry(t, "apply id", func() bool { return c.applyID(&next) })
		brokers = append(brokers, c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for _, c := range brokers {
		retry(t, "register", func() bool { return succeeded(c.register()) })
		require.NoError(t, c.b.HeartbeatSync(ctx))
	}
	b1, all := brokers[0], []int64{brokers[0].ids, brokers[1].ids, brokers[2].ids}
	retry(t, "first election", func() bool {
		r := b1.elect()
		return r != nil && (r.code == remoting.Success || r.code == remoting.ControllerMasterStillExist)
	})
	retry(t, "sync-state set of all three", func() bool {
		r := b1.replicaInfo()
		if !succeeded(r) || r.out.master != b1.ids || slices.Equal(r.out.sss, all) {
			return succeeded(r) && r.out.master == b1.ids
		}
		b1.alter(r.out.epoch, r.out.ssEpoch, all...)
		return false
	})
	for _, c := range brokers {
		c.b.StartHeartbeats(heartbeatInterval)
	}
	return brokers, newFaultClient(t, h, 0, ctls)
}

// succeeded reports a request answered with code 0.
func succeeded(r *record) bool { return r != nil && !r.unknown && r.code == remoting.Success }

// retry polls fn until it reports success (a setup step that a leader
// change may fail).
func retry(t *testing.T, what string, fn func() bool) {
	t.Helper()
	require.Eventually(t, fn, 2*waitLimit, 50*time.Millisecond, "setup: %s", what)
}

// finalRead polls 1006 until the healed cluster answers it.
func finalRead(t *testing.T, admin *faultClient) *record {
	t.Helper()
	var final *record
	require.Eventually(t, func() bool {
		final = admin.syncState()
		return final != nil && !final.unknown && final.code == remoting.Success && final.out.hasMaster
	}, 2*waitLimit, 50*time.Millisecond, "no final 1006 answer")
	return final
}

// verify runs every check over the history: the per-message invariants,
// the final state against the acknowledged writes and porcupine against
// setModel, told of the elections the controller ran on its own. It
// returns what failed.
func verify(t *testing.T, h *history, clients []*faultClient, final *record, ownElections int64) []string {
	t.Helper()
	for _, c := range clients {
		c.notices()
	}
	recs := h.records()
	var out []string
	for _, v := range append(checkInvariants(recs), checkNoLostWrite(recs, final)...) {
		out = append(out, v.String())
	}
	ops := 0
	for _, r := range recs {
		if r.in.kind != opNotice {
			ops++
		}
	}
	if hidden := int(ownElections) * attemptsPerElection; hidden > maxHiddenElections {
		t.Logf("porcupine: skipped, the controller ran %d elections of its own", ownElections)
	} else {
		res, partial := linearizable(recs, h.start, porcupineTimeout, hidden)
		t.Logf("porcupine: %s over %d operations (%d hidden controller election attempts)", res, ops, hidden)
		if res == porcupine.Illegal {
			out = append(out, "linearizability: no linearization; the longest partial one ends:\n\t"+tail(partial, 6))
		}
	}
	if len(out) > 0 {
		for _, l := range h.lines() {
			t.Log(l)
		}
	}
	return out
}

// requireSafe logs each violation and fails the test if there is any.
func requireSafe(t *testing.T, violations []string) {
	t.Helper()
	for _, v := range violations {
		t.Log("VIOLATION " + v)
	}
	require.Zero(t, len(violations), "safety violations (logged above with the history)")
}

// tail joins the last n lines.
func tail(lines []string, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	s := ""
	for i, l := range lines {
		if i > 0 {
			s += "\n\t"
		}
		s += l
	}
	return s
}

// pauseFollowers stops the log writes of both followers (their fsync is
// slower than any request timeout) while the leader's disk is healthy, so
// the leader keeps its lease but commits nothing. It returns the leader.
func pauseFollowers(t *testing.T, fc *faultCluster) *node {
	t.Helper()
	leader := fc.leader()
	for _, f := range fc.followers() {
		fc.disks[f.id].Pause()
	}
	return leader
}

// holdBack is how long the schedules give a request that a controller
// does not append at once (a fixed one may hold it until the entry in
// flight is applied) before the disks recover.
const holdBack = time.Second

// awaitAppendOrHold waits until the leader wrote n more log batches than
// base, or at most holdBack: a step of the schedule, not an assertion.
func awaitAppendOrHold(fc *faultCluster, leader *node, base, n int) {
	for deadline := time.Now().Add(holdBack); fc.disks[leader.id].Writes() < base+n && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
}

// awaitAppends waits until the leader wrote n more log batches than base.
func awaitAppends(t *testing.T, fc *faultCluster, leader *node, base, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return fc.disks[leader.id].Writes() >= base+n },
		waitLimit, 5*time.Millisecond, "the leader appended %d entries", n)
}

// TestFaultStaleBuildAfterApplyTimeout is the stale-build
// schedule: an admin election of broker 2 times out while its entry is
// in flight; the old master's AlterSyncStateSet {1,3} under masterEpoch 1 is
// then built from the state without it; once the disks recover both
// commit. Expected: the alter is fenced or ordered after the election, so
// the master stays in its sync-state set and the history is linearizable.
func TestFaultStaleBuildAfterApplyTimeout(t *testing.T) {
	fc := startFaultCluster(t, false)
	h := newHistory()
	brokers, admin := setupFaultSet(t, fc.addrs(), h)
	b1, b2, b3 := brokers[0], brokers[1], brokers[2]
	before := b1.replicaInfo() // the epochs the master knows
	require.True(t, succeeded(before))
	leader := pauseFollowers(t, fc)
	base := fc.disks[leader.id].Writes()

	elect := admin.adminElect(b2.ids) // waits out the 5 s request timeout
	t.Logf("admin election of broker 2 under slow follower disks: %s", elect)
	awaitAppends(t, fc, leader, base, 1)

	done := make(chan *record, 1)
	go func() { done <- b1.alter(before.out.epoch, before.out.ssEpoch, b1.ids, b3.ids) }()
	awaitAppendOrHold(fc, leader, base, 2)
	fc.heal()
	t.Logf("alter {1,3} by the old master: %s", <-done)

	final := finalRead(t, admin)
	for _, b := range brokers {
		b.replicaInfo()
	}
	t.Logf("final state: %s", final.out)
	requireSafe(t, verify(t, h, append(brokers, admin), final, fc.triggers.n.Load()))
}

// TestFaultElectFromStaleStateAfterApplyTimeout is the other order of
// the stale-build schedule: an admin election of broker 2 times out in flight, and a second
// one (broker 3) is built from the state without it. Its reply and its
// 1008 notifications must not name broker 3 master of the epoch that the
// log gives to broker 2.
func TestFaultElectFromStaleStateAfterApplyTimeout(t *testing.T) {
	fc := startFaultCluster(t, false)
	h := newHistory()
	brokers, admin := setupFaultSet(t, fc.addrs(), h)
	leader := pauseFollowers(t, fc)
	base := fc.disks[leader.id].Writes()

	t.Logf("admin election of broker 2 under slow follower disks: %s", admin.adminElect(brokers[1].ids))
	awaitAppends(t, fc, leader, base, 1)

	done := make(chan *record, 1)
	go func() { done <- admin.adminElect(brokers[2].ids) }()
	awaitAppendOrHold(fc, leader, base, 2)
	fc.heal()
	elect3 := <-done
	t.Logf("admin election of broker 3: %s", elect3)
	if elect3.code == remoting.Success {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		_, err := brokers[2].b.WaitNotice(ctx, elect3.out.epoch)
		require.NoError(t, err, "the new master is notified")
	}

	final := finalRead(t, admin)
	for _, b := range brokers {
		b.replicaInfo()
	}
	t.Logf("final state: %s", final.out)
	requireSafe(t, verify(t, h, append(brokers, admin), final, fc.triggers.n.Load()))
}
