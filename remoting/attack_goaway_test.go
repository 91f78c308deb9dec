package remoting

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
)

// TestAttackGoAwayFloodHonoursDeadline: during a one-minute GO_AWAY period
// old peers (version 317, served as usual) and new ones (answered
// GO_AWAY) flood requests on several connections; a Shutdown whose
// context ends after 300 ms returns the context's error soon after, every
// connection is closed, and no goroutine outlives the test (TestMain's
// goleak).
func TestAttackGoAwayFloodHonoursDeadline(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{GoAwayPeriod: time.Minute})
	s.Register(77, func(_ *Conn, req *Command) (*Command, error) { return NewResponse(req, Success, ""), nil })
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := range 4 {
		c := dial(t, addr, ClientOptions{})
		version := int32(317)
		if i%2 == 1 {
			version = CurrentVersion
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				_, err := c.Invoke(ctx, withVersion(77, version))
				cancel()
				if err != nil {
					return
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	// the flood is on before Shutdown: connections still in the listen
	// backlog would be reset with the listener, and Shutdown finish at once
	poll.Until(t, "the four connections served", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { return len(s.openConns()) == 4 }))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(ctx) }()
	select {
	case err := <-done:
		require.True(t, errors.Is(err, context.DeadlineExceeded), "got %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("Shutdown ignores its deadline under a request flood")
	}
	poll.Until(t, "every connection closed", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { return len(s.openConns()) == 0 }))
}
