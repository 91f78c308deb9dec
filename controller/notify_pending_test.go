//go:build embedded_controller

package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/remoting"
)

// gatedDials is a notifier dial that records each address and waits for
// open before it fails (the delivery ends, a slot frees).
type gatedDials struct {
	open chan struct{}
	mu   sync.Mutex
	addr map[string]int
}

func (g *gatedDials) dial(ctx context.Context, addr string) (*remoting.Client, error) {
	g.mu.Lock()
	g.addr[addr]++
	g.mu.Unlock()
	select {
	case <-g.open:
	case <-ctx.Done():
	}
	return nil, errors.New("test dial refused")
}

func (g *gatedDials) distinct() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.addr)
}

// TestNotifierQueuesPastTheInflightBound: a failover storm elects more
// masters at once than maxNotifyInflight deliveries may run; the
// notifications past the bound wait for a slot instead of being dropped
// (333 new masters of a zone failure lost 7-8 1008s to the bound once the
// elections finished together).
func TestNotifierQueuesPastTheInflightBound(t *testing.T) {
	noLeakAtEnd(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := newNotifier(ctx, testlog.New(t, "notify"), newRecordingObserver(), 0)
	g := &gatedDials{open: make(chan struct{}), addr: map[string]int{}}
	n.pool.dial = g.dial
	const storm = maxNotifyInflight + 77
	for i := 0; i < storm; i++ {
		n.send(fmt.Sprintf("10.0.%d.%d:10911", i/250, i%250), roleChangeNotifyEntry{MasterBrokerID: 2, MasterEpoch: 2})
	}
	eventually(t, "the bound's worth of deliveries dialling", func() bool { return g.distinct() == maxNotifyInflight })
	close(g.open)
	eventually(t, fmt.Sprintf("all %d addresses dialled", storm), func() bool { return g.distinct() == storm })
	n.wait()
	require.Equal(t, storm, g.distinct())
}

// TestNotifierPendingIsBounded: the notifications waiting for a slot are
// bounded (one per address; a stranger's members choose the addresses);
// past maxNotifyPending they are dropped, and a newer epoch for a waiting
// address replaces the older one without taking another place.
func TestNotifierPendingIsBounded(t *testing.T) {
	noLeakAtEnd(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := newNotifier(ctx, testlog.New(t, "notify"), newRecordingObserver(), 0)
	g := &gatedDials{open: make(chan struct{}), addr: map[string]int{}}
	n.pool.dial = g.dial
	total := maxNotifyInflight + maxNotifyPending + 100
	for i := 0; i < total; i++ {
		n.send(fmt.Sprintf("10.%d.%d.%d:10911", i/62500, i/250%250, i%250), roleChangeNotifyEntry{MasterBrokerID: 2, MasterEpoch: 2})
	}
	last := fmt.Sprintf("10.%d.%d.%d:10911", (total-101)/62500, (total-101)/250%250, (total-101)%250)
	n.send(last, roleChangeNotifyEntry{MasterBrokerID: 3, MasterEpoch: 3})
	n.mu.Lock()
	inflight, pending, order, kept := len(n.inflight), len(n.pending), len(n.order), n.pending[last].MasterEpoch
	n.mu.Unlock()
	require.Equal(t, maxNotifyInflight, inflight)
	require.Equal(t, maxNotifyPending, pending)
	require.Equal(t, maxNotifyPending, order)
	require.EqualValues(t, 3, kept, "the newer epoch replaced the waiting one")
	close(g.open)
	n.wait()
}
