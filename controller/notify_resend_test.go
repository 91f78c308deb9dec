//go:build embedded_controller

package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/remoting"
)

func (s *frameSink) addr() string { return s.ln.Addr().String() }

// loseNext makes the next n frames land in closed connections.
func (s *frameSink) loseNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lose += n
}

// arrivals returns how many times epoch arrived, and whether once on a
// connection numbered from or above from.
func (s *frameSink) arrivals(epoch int32, from int) (times int, anew bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.got {
		if f.epoch == epoch {
			times++
			anew = anew || f.conn >= from
		}
	}
	return times, anew
}

func (s *frameSink) accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// arrivesAnew polls until epoch has arrived at s on a connection accepted
// after the first from.
func arrivesAnew(t *testing.T, s *frameSink, epoch int32, from int) {
	t.Helper()
	poll.Until(t, fmt.Sprintf("epoch %d on a new connection", epoch), 10*time.Second, 5*time.Millisecond, func() error {
		if times, anew := s.arrivals(epoch, from); !anew {
			return fmt.Errorf("arrived %d times, none on a connection after the first %d; %d accepted",
				times, from, s.accepted())
		}
		return nil
	})
}

// TestNotifierResendsFrameWrittenIntoClosedConnection: the broker closed
// the pooled connection, the notifier's one 1008 was written into it
// before the close showed, and the close shows right after: the same 1008
// reaches the broker on a new connection, once.
func TestNotifierResendsFrameWrittenIntoClosedConnection(t *testing.T) {
	noLeakAtEnd(t)
	sink := newFrameSink(t)
	ctx, cancel := context.WithCancel(context.Background())
	obs := newRecordingObserver()
	n := newNotifier(ctx, testlog.New(t, "notify"), obs, 0)
	notifyAndWait(t, n, obs, sink.addr(), 1)
	arrivesAnew(t, sink, 1, 0)
	sink.loseNext(1)
	notifyAndWait(t, n, obs, sink.addr(), 2)
	arrivesAnew(t, sink, 2, 1)
	cancel()
	n.wait()
	times, _ := sink.arrivals(2, 1)
	require.Equal(t, 1, times, "re-sent once")
}

// TestRecentNotifiesBounded: a stranger's members choose the addresses
// and the sets; what is kept for re-sending stays within its bounds of
// addresses, records per address and bytes, and an oversized frame is not
// kept.
func TestRecentNotifiesBounded(t *testing.T) {
	r := newRecentNotifies()
	c := &remoting.Client{}
	for i := 0; i < 20000; i++ {
		e := roleChangeNotifyEntry{MasterEpoch: int32(i)}
		e.Group.Cluster, e.Group.BrokerName = "c", fmt.Sprintf("set-%d", i%7)
		r.note(fmt.Sprintf("10.0.%d.%d:10911", i/250%250, i%250), c, e, 1+i%3000)
	}
	r.note("big:1", c, roleChangeNotifyEntry{MasterEpoch: 1}, maxRecentFrameSize+1)
	addrs, records, bytes := r.counts()
	t.Logf("kept %d addresses, %d records, %d bytes", addrs, records, bytes)
	require.LessOrEqual(t, addrs, maxRecentAddrs)
	require.LessOrEqual(t, records, addrs*maxRecentPerAddr)
	require.LessOrEqual(t, bytes, maxRecentBytes)
	require.Empty(t, r.take("big:1", c), "an oversized frame is not kept")
}
