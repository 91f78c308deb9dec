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
