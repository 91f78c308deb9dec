//go:build embedded_controller

package controller

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/remoting"
)

// A stranger's flood against one broker set's failover, on a leader whose
// log writes take floodWriteDelay each (a slow fsync): every entry of a
// set waits for the one before it, so a chain of entries is as long as
// its entries times the delay.
const (
	floodWriteDelay = 10 * time.Millisecond
	floodWorkers    = 400 // requests in flight: a chain of about 4 s
)

// slowDiskLeader is a one-node controller whose log writes wait
// floodWriteDelay, with two sets of two brokers (set-000, set-001).
func slowDiskLeader(t *testing.T) (*inmemControllers, *Controller, *stormFleet) {
	t.Helper()
	disk := &raftstore.DiskFaults{}
	ic := newCluster(t, 1, tuneRaft(func(cfg *raftstore.Config) { cfg.DiskFaults = disk }), withProps("scanInactiveMasterInterval=1000"))
	ctl := ic.leader(t)
	fleet := newStormFleet(t, ctl, 2)
	disk.SetDelay(floodWriteDelay)
	return ic, ctl, fleet
}

// requestFlood sends requests from workers goroutines until stop, over
// as many connections as the server's per-connection bound of async
// requests (remoting.DefaultMaxAsyncPerConn) needs; next(w, i) builds
// the i-th request of worker w.
type requestFlood struct {
	stop chan struct{}
	wg   sync.WaitGroup
	sent atomic.Int64
}

// newRequestFlood dials n connections to addr, closed (after halt) when
// the test ends.
func newRequestFlood(t *testing.T, addr string, n int) (*requestFlood, []*remoting.Client) {
	t.Helper()
	f := &requestFlood{stop: make(chan struct{})}
	conns := make([]*remoting.Client, n)
	for i := range conns {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
		cancel()
		require.NoError(t, err)
		conns[i] = c
	}
	t.Cleanup(func() {
		f.halt()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return f, conns
}

func startFlood(t *testing.T, addr string, workers int, next func(worker, i int) *remoting.Command) *requestFlood {
	t.Helper()
	f, conns := newRequestFlood(t, addr, (workers+remoting.DefaultMaxAsyncPerConn-1)/remoting.DefaultMaxAsyncPerConn)
	for w := range workers {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for i := 0; ; i++ {
				select {
				case <-f.stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				_, _ = conns[w/remoting.DefaultMaxAsyncPerConn].Invoke(ctx, next(w, i))
				cancel()
				f.sent.Add(1)
			}
		}()
	}
	return f
}

// startTicking sends next() every period until halt, without waiting for
// the answers (up to 64 unanswered).
func startTicking(t *testing.T, addr string, period time.Duration, next func() *remoting.Command) *requestFlood {
	t.Helper()
	f, conns := newRequestFlood(t, addr, 64/remoting.DefaultMaxAsyncPerConn)
	slots := make(chan struct{}, 64)
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		tick := time.NewTicker(period)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-f.stop:
				return
			case <-tick.C:
			}
			select {
			case slots <- struct{}{}:
			default:
				continue
			}
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				defer func() { <-slots }()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_, _ = conns[i%len(conns)].Invoke(ctx, next())
				f.sent.Add(1)
			}()
		}
	}()
	return f
}

// halt stops the flood and waits for its workers.
func (f *requestFlood) halt() {
	select {
	case <-f.stop:
	default:
		close(f.stop)
	}
	f.wg.Wait()
}

// failoverTimes closes the masters' connections of the named sets at once
// and returns how long each set took to get a new master (master epoch
// 2), polling up to within; a set that did not is missing.
func failoverTimes(t *testing.T, ctl *Controller, fleet *stormFleet, within time.Duration, sets ...string) map[string]time.Duration {
	t.Helper()
	start := time.Now()
	for _, s := range sets {
		require.NoError(t, fleet.conns[s][0].Close())
	}
	got := map[string]time.Duration{}
	for time.Since(start) < within && len(got) < len(sets) {
		epochs := ctl.MasterEpochs()
		for _, s := range sets {
			if _, done := got[s]; !done && epochs[s] >= 2 {
				got[s] = time.Since(start)
			}
		}
		time.Sleep(time.Millisecond)
	}
	return got
}

// failedOver renders set's entry of failoverTimes.
func failedOver(got map[string]time.Duration, set string) string {
	if d, ok := got[set]; ok {
		return "after " + d.String()
	}
	return "not within " + electAttemptTimeout.String()
}

// applyRetry is a stranger's 1013 for id 1 of its own set "ghost", the
// same check code every time: an idempotent retry, one entry each.
func applyRetry(int, int) *remoting.Command {
	return remoting.NewRequest(remoting.ControllerApplyBrokerID, map[string]string{"clusterName": "c",
		"brokerName": "ghost", "appliedBrokerId": "1", "registerCheckCode": "10.9.9.9:10911;1"}, nil)
}

// TestAttackGrowthChainHoldsFailoverBack: a stranger keeps a chain of
// 1013 retries on a set of its own and sends a no-op 1003 for the victim
// set every 500 ms. Every request that could grow the state used to take
// one shared key besides its set's: the victim's 1003 queued behind the
// whole chain, and the controller's own election of the victim queued
// behind the 1003 (three attempts of 3 s timed out, then the inactive-master scan's
// did): the victim had no master while the stranger went on, as an
// unattacked set failed over at once. A request that changes nothing
// takes no growth now, and growth is reserved per entry instead of
// serialised, so the victim fails over like the control set.
func TestAttackGrowthChainHoldsFailoverBack(t *testing.T) {
	_, ctl, fleet := slowDiskLeader(t)
	chain := startFlood(t, ctl.Addr(), floodWorkers, applyRetry)
	noop := startTicking(t, ctl.Addr(), 500*time.Millisecond, func() *remoting.Command {
		return remoting.NewRequest(remoting.ControllerRegisterBroker, map[string]string{"clusterName": "c",
			"brokerName": "set-000", "brokerAddress": "10.1.0.1:10911", "brokerId": "1"}, nil)
	})
	require.Eventually(t, func() bool { return ctl.sched.Pending() >= floodWorkers/2 }, 20*time.Second, time.Millisecond)
	time.Sleep(time.Second) // the victim's 1003 is queued

	got := failoverTimes(t, ctl, fleet, electAttemptTimeout, "set-000", "set-001")
	live := ctl.sched.Pending()
	chain.halt()
	noop.halt()
	t.Logf("write delay %v, stranger's live tasks %d: control set failed over %s, victim set %s",
		floodWriteDelay, live, failedOver(got, "set-001"), failedOver(got, "set-000"))
	require.Contains(t, got, "set-001", "the control set failed over")
	require.Contains(t, got, "set-000", "the victim set failed over within one election attempt")
}

// TestAttackQueuedSetTasksHoldFailoverBack: a stranger queues entries on
// the victim set itself (1003s flipping the address of its slave, ACL
// off), hundreds deep. The controller's own election of the set used to
// queue behind all of them and time out; it waits only for the set's
// entry in flight, and the queued tasks are built after it.
func TestAttackQueuedSetTasksHoldFailoverBack(t *testing.T) {
	_, ctl, fleet := slowDiskLeader(t)
	startFlood(t, ctl.Addr(), floodWorkers, func(w, i int) *remoting.Command {
		return remoting.NewRequest(remoting.ControllerRegisterBroker, map[string]string{"clusterName": "c",
			"brokerName": "set-000", "brokerId": "2",
			"brokerAddress": "10.1.0.2:" + strconv.Itoa(20000+(w*7+i)%1000)}, nil)
	})
	require.Eventually(t, func() bool { return ctl.sched.Pending() >= floodWorkers/2 }, 20*time.Second, time.Millisecond)

	got := failoverTimes(t, ctl, fleet, electAttemptTimeout, "set-000", "set-001")
	t.Logf("write delay %v, stranger's live tasks on the victim set %d: control set failed over %s, victim set %s",
		floodWriteDelay, ctl.sched.Pending(), failedOver(got, "set-001"), failedOver(got, "set-000"))
	require.Contains(t, got, "set-001", "the control set failed over")
	require.Contains(t, got, "set-000", "the victim set failed over within one election attempt")
}
