package namesrv

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

func TestLaneRunsHandlersOneAtATime(t *testing.T) {
	l := newLane(registrationNice, nil)
	defer l.close()
	var mu sync.Mutex
	running, most := 0, 0
	h := l.handler(func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		return remoting.NewResponse(req, remoting.Success, ""), nil
	})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			resp, err := h(nil, remoting.NewRequest(remoting.RegisterBroker, nil, nil))
			require.NoError(t, err)
			require.Equal(t, remoting.Success, resp.Code)
		})
	}
	wg.Wait()
	require.Equal(t, 1, most)
}

func TestLanePanicBecomesError(t *testing.T) {
	l := newLane(registrationNice, nil)
	defer l.close()
	boom := l.handler(func(*remoting.Conn, *remoting.Command) (*remoting.Command, error) { panic("boom") })
	_, err := boom(nil, remoting.NewRequest(remoting.RegisterBroker, nil, nil))
	require.ErrorContains(t, err, "boom")
	fails := l.handler(func(*remoting.Conn, *remoting.Command) (*remoting.Command, error) { return nil, errors.New("x") })
	_, err = fails(nil, remoting.NewRequest(remoting.RegisterBroker, nil, nil))
	require.EqualError(t, err, "x", "the lane keeps serving after a panic")
}

// TestLaneCallAnswersAsTheLane: a handler run by call on the caller's
// goroutine fails as it would on the lane, and the lane is told of the
// panic in both cases.
func TestLaneCallAnswersAsTheLane(t *testing.T) {
	var told []any
	l := newLane(registrationNice, func(v any, _ []byte) { told = append(told, v) })
	defer l.close()
	boom := func(*remoting.Conn, *remoting.Command) (*remoting.Command, error) { panic("boom") }
	req := remoting.NewRequest(remoting.RegisterBroker, nil, nil)
	_, onLane := l.do(nil, req, boom)
	_, onCaller := l.call(nil, req, boom)
	require.Error(t, onLane)
	require.Equal(t, onLane, onCaller)
	require.Equal(t, []any{"boom", "boom"}, told)
}
