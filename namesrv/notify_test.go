package namesrv

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// stuckNotifier replaces a server's 905 sender with one that blocks until
// its context ends, counting sends started and finished.
type stuckNotifier struct{ started, finished atomic.Int32 }

func (n *stuckNotifier) install(s *Server) {
	s.sendNotify = func(ctx context.Context, _ string, _ *remoting.Command) {
		n.started.Add(1)
		defer n.finished.Add(1)
		<-ctx.Done()
	}
}

func minIDChange(targets ...string) wire.MinBrokerIDChange {
	return wire.MinBrokerIDChange{TargetAddrs: targets, MinBrokerID: 1, MinBrokerAddr: "127.0.0.1:10911"}
}

// TestShutdownWaitsForNotifications: Shutdown returns only once every 905
// send it found in flight has ended (cut short when its context expires),
// and none starts after shutdown began.
func TestShutdownWaitsForNotifications(t *testing.T) {
	srv := startServer(t, nil)
	var n stuckNotifier
	n.install(srv)
	srv.notifyMinBrokerIDChange(minIDChange("127.0.0.1:1", "127.0.0.1:2"))
	poll.Until(t, "n.started.Load() == 2", 5*time.Second, time.Millisecond, poll.True(func() bool { return n.started.Load() == 2 }))

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := srv.Shutdown(ctx)
	require.Equal(t, int32(2), n.finished.Load(), "a notification goroutine outlived Shutdown")
	require.ErrorIs(t, err, context.DeadlineExceeded, "the sends were cut short")

	srv.notifyMinBrokerIDChange(minIDChange("127.0.0.1:3"))
	require.Equal(t, int32(2), n.started.Load(), "a notification started after shutdown")
}

// TestShutdownLetsNotificationsFinish: sends that end within Shutdown's
// context are waited for, not cut short.
func TestShutdownLetsNotificationsFinish(t *testing.T) {
	srv := startServer(t, nil)
	var started, finished atomic.Int32
	release := make(chan struct{})
	srv.sendNotify = func(context.Context, string, *remoting.Command) {
		started.Add(1)
		defer finished.Add(1)
		<-release
	}
	srv.notifyMinBrokerIDChange(minIDChange("127.0.0.1:1"))
	poll.Until(t, "started.Load() == 1", 5*time.Second, time.Millisecond, poll.True(func() bool { return started.Load() == 1 }))
	go func() {
		for !srv.stopping.Load() {
			time.Sleep(time.Millisecond)
		}
		close(release)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.Shutdown(ctx))
	require.Equal(t, int32(1), finished.Load())
}
