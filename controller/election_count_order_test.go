//go:build embedded_controller

package controller

import (
	"context"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// orderObserver records, for each notification of masterEpoch epoch
// delivered, how many elections had been reported before it.
type orderObserver struct {
	NopObserver
	epoch    int32
	mu       sync.Mutex
	finished int
	seenAt   []int // finished at each NotifySent of epoch
}

func (o *orderObserver) ElectionFinished(ElectTrigger, int32, time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.finished++
}

func (o *orderObserver) NotifySent(_ string, epoch int32, _ error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if epoch == o.epoch {
		o.seenAt = append(o.seenAt, o.finished)
	}
}

func (o *orderObserver) counts() (finished int, seenAt []int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.finished, append([]int(nil), o.seenAt...)
}

// slowWriter writes through to w, pausing on lines that contain slow
// (a loaded machine between two statements).
type slowWriter struct {
	w    io.Writer
	slow string
}

func (s slowWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), s.slow) {
		time.Sleep(300 * time.Millisecond)
	}
	return s.w.Write(p)
}

// TestElectionCountedBeforeNotified: a controller-triggered
// election sent its 1008 before it reported the election to the Observer
// (metrics, and the tests' counts), so a broker that had its 1008, or a
// test that waited for it (TestBrokerScriptAndFailoverOnConnClose reads
// the leader's elections right after), could find the election not
// counted yet. A slow log line between the two made every notification
// come first; the election must be counted before any of its
// notifications is sent.
func TestElectionCountedBeforeNotified(t *testing.T) {
	obs := &orderObserver{epoch: 2} // the controller's election, after the broker's (epoch 1)
	logger := hclog.New(&hclog.LoggerOptions{Name: "ctl", Level: hclog.Info,
		Output: slowWriter{w: io.Discard, slow: "controller-triggered election finished"}})
	lns, peers := listenPeers(t, []string{"n0"})
	cfg := testControllerConfig(t, "n0", peers, "n0-"+freeRaftAddr(t), "enableElectUncleanMaster=true")
	ctl, err := New(cfg, logger, WithListener(lns[0]), WithObserver(obs))
	require.NoError(t, err)
	require.NoError(t, ctl.Start())
	t.Cleanup(func() { require.NoError(t, ctl.Shutdown(context.Background())) })
	require.Eventually(t, ctl.IsReadyLeader, 10*time.Second, 10*time.Millisecond)

	b1, b2 := dialAttack(t, ctl.Addr()), dialAttack(t, ctl.Addr())
	// In order: a set's first broker must apply id 1 (2014 otherwise).
	for i, b := range []*attackConn{b1, b2} {
		id := strconv.Itoa(i + 1)
		resp := b.call(t, remoting.ControllerApplyBrokerID, map[string]string{"clusterName": "c", "brokerName": "b",
			"appliedBrokerId": id, "registerCheckCode": "127.0.0.1:10911;" + id})
		require.Equal(t, codeSuccess, resp.Code, resp.Remark)
		require.True(t, b.beat(id))
	}
	resp := b1.call(t, remoting.ControllerElectMaster, map[string]string{"clusterName": "c", "brokerName": "b",
		"brokerId": "1", "designateElect": "false"})
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	finished, _ := obs.counts()
	require.NoError(t, b1.nc.Close()) // the master goes: broker 2 is elected (unclean: it is not in the set)
	require.Eventually(t, func() bool { _, seen := obs.counts(); return len(seen) > 0 },
		10*time.Second, 5*time.Millisecond, "a notification of the controller's election")
	_, seen := obs.counts()
	require.Greater(t, seen[0], finished, "the notification was sent before its election was counted")
}
