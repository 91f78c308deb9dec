//go:build embedded_controller

package controller

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/sched"
	"github.com/rmqgo/nameserver/remoting"
)

// fillScheduler submits tasks until the scheduler answers busy: a chain on
// one stranger's set whose head blocks until release is closed (a stranger
// whose requests queue behind slow fsyncs, or whose timed-out tasks still
// wait on the scheduler). It returns how many it submitted.
func fillScheduler(t *testing.T, ctl *Controller, key string, release <-chan struct{}) int {
	t.Helper()
	n := 0
	for ; ; n++ {
		err := ctl.sched.Submit(sched.SetKeys(key), func() { <-release })
		if err != nil {
			require.ErrorIs(t, err, sched.ErrFull)
			return n
		}
		require.Less(t, n, 1<<20)
	}
}

// TestAttackFullQueueLocksOutFailover: a stranger keeps the leader's
// scheduler full (1,024 live tasks on a set of its own) while a master's
// connection closes. The controller's own election of that set shares no
// key with the stranger's tasks, but used to be answered "busy" like any
// request: three attempts, then nothing until the inactive-master scan, which is refused
// the same way; the set stayed without a master for as long as the stranger
// kept the queue full. The controller's own elections are at most one per
// stored set (election_loop.go), so they are admitted past the bound.
func TestAttackFullQueueLocksOutFailover(t *testing.T) {
	ic := newCluster(t, 1, withProps("scanInactiveMasterInterval=1000"))
	ctl := ic.leader(t)
	fleet := newStormFleet(t, ctl, 2)
	release := make(chan struct{})
	defer close(release)
	n := fillScheduler(t, ctl, "ghost", release)
	t.Logf("stranger's live tasks: %d", n)
	require.Equal(t, schedulerQueueSize, n, "the bound still holds for requests")

	require.NoError(t, fleet.conns["set-000"][0].Close())
	deadline := time.Now().Add(8 * time.Second)
	for ctl.MasterEpochs()["set-000"] != 2 {
		if time.Now().After(deadline) {
			elections, _ := ic.obs[ctl.Node().ID()].snapshot()
			require.FailNow(t, "no failover while the queue is full",
				"master epochs %v, elections (trigger:code) %v", ctl.MasterEpochs(), elections)
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.Equal(t, int32(1), ctl.MasterEpochs()["set-001"], "the live set keeps its master")
	require.ErrorIs(t, ctl.sched.Submit(sched.SetKeys("ghost"), func() {}), sched.ErrFull,
		"the stranger is still held at the bound")
}

// TestAttackGlobalReadHoldsFailoverBack: a stranger's 1006 with no names
// (or more than 64) used to be a global task: it waits for every live task
// and every later task waits for it. Behind a slow entry of the stranger's
// own set (here one that does not finish while the test runs), one such
// read held back the controller's election of an unrelated set whose master
// had gone: three attempts timed out behind it. A read appends nothing
// that changes a set, so it waits for the tails of the sets it names and
// holds no later task back.
func TestAttackGlobalReadHoldsFailoverBack(t *testing.T) {
	ic := newCluster(t, 1)
	ctl := ic.leader(t)
	fleet := newStormFleet(t, ctl, 2)
	release := make(chan struct{})
	defer close(release)
	require.NoError(t, ctl.sched.Submit(sched.SetKeys("ghost"), func() { <-release }))
	many := make([]string, 100)
	for i := range many {
		many[i] = "ghost"
	}
	body, err := json.Marshal(many)
	require.NoError(t, err)
	for _, b := range [][]byte{nil, body} {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if c, err := remoting.Dial(ctx, ctl.Addr(), remoting.ClientOptions{}); err == nil {
				defer c.Close()
				_, _ = c.Invoke(ctx, remoting.NewRequest(remoting.ControllerGetSyncStateData, nil, b))
			}
		}()
	}
	require.Eventually(t, func() bool { return ctl.sched.Pending() >= 2 }, 10*time.Second, time.Millisecond)

	require.NoError(t, fleet.conns["set-000"][0].Close())
	deadline := time.Now().Add(4 * time.Second)
	for ctl.MasterEpochs()["set-000"] != 2 {
		if time.Now().After(deadline) {
			elections, _ := ic.obs[ctl.Node().ID()].snapshot()
			require.FailNow(t, "no failover behind a stranger's read",
				"master epochs %v, elections (trigger:code) %v, live tasks %d", ctl.MasterEpochs(), elections, ctl.sched.Pending())
		}
		time.Sleep(5 * time.Millisecond)
	}
	resp := invoke(t, ctl.Addr(), remoting.ControllerGetSyncStateData, nil, []byte(`["set-000","set-001"]`))
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
}
