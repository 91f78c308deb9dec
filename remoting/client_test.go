package remoting

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
)

// connCatcher registers code 1 to remember the server side of a connection.
func connCatcher(s *Server) <-chan *Conn {
	ch := make(chan *Conn, 1)
	s.Register(1, func(c *Conn, req *Command) (*Command, error) {
		select {
		case ch <- c:
		default:
		}
		return NewResponse(req, Success, ""), nil
	})
	return ch
}

func TestServerToClientInvokeAndOneway(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{})
	conns := connCatcher(s)
	pushed := make(chan *Command, 1)
	c := dial(t, addr, ClientOptions{OnRequest: func(req *Command) *Command {
		if req.IsOneway() {
			pushed <- req
			return nil
		}
		resp := NewResponse(req, Success, "broker says hi")
		resp.ExtFields = req.ExtFields
		return resp
	}})
	invoke(t, c, NewRequest(1, nil, nil))
	sc := <-conns
	require.NotEmpty(t, sc.RemoteAddr())
	require.Equal(t, c.LocalAddr(), sc.RemoteAddr())

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	notify := NewRequest(NotifyBrokerRoleChanged, map[string]string{"masterEpoch": "2"}, nil)
	resp, err := sc.Invoke(ctx, notify)
	require.NoError(t, err)
	require.Equal(t, "broker says hi", resp.Remark)
	require.Equal(t, map[string]string{"masterEpoch": "2"}, resp.ExtFields)
	require.Zero(t, notify.Opaque, "the caller's command is not modified")

	require.NoError(t, sc.SendOneway(NewRequest(NotifyMinBrokerIDChange, map[string]string{"minBrokerId": "0"}, nil)))
	got := <-pushed
	require.Equal(t, NotifyMinBrokerIDChange, got.Code)
	require.True(t, got.IsOneway())
}

func TestClientWithoutOnRequestAnswersNotSupported(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{})
	conns := connCatcher(s)
	c := dial(t, addr, ClientOptions{})
	invoke(t, c, NewRequest(1, nil, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := (<-conns).Invoke(ctx, NewRequest(NotifyBrokerRoleChanged, nil, nil))
	require.NoError(t, err)
	require.Equal(t, RequestCodeNotSupported, resp.Code)
}

func TestClientPipelining(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{})
	s.Register(GetRouteinfoByTopic, echo)
	c := dial(t, addr, ClientOptions{})
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				topic := fmt.Sprintf("T-%d-%d", g, i)
				resp, err := c.Invoke(context.Background(), NewRequest(GetRouteinfoByTopic, map[string]string{"topic": topic}, nil))
				if !(err == nil && resp.ExtFields["topic"] == topic) {
					t.Errorf("wrong response for %s: %v %v", topic, resp, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestClientTimeoutAndClose(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{})
	s.Register(1, func(*Conn, *Command) (*Command, error) { return nil, nil }) // never answers
	c := dial(t, addr, ClientOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := c.Invoke(ctx, NewRequest(1, nil, nil))
	require.ErrorIs(t, err, ErrTimeout)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	errs := make(chan error, 1)
	go func() { _, err := c.Invoke(context.Background(), NewRequest(1, nil, nil)); errs <- err }()
	poll.Until(t, "request pending", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { c.conn.pmu.Lock(); defer c.conn.pmu.Unlock(); return len(c.conn.pending) == 1 }))
	require.NoError(t, c.Close())
	require.ErrorIs(t, <-errs, ErrClosed)
	_, err = c.Invoke(context.Background(), NewRequest(1, nil, nil))
	require.ErrorIs(t, err, ErrClosed)
	require.ErrorIs(t, c.InvokeOneway(NewRequest(1, nil, nil)), ErrClosed)
}

func TestClientCloseFlushesOneway(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{})
	got := make(chan *Command, 1)
	s.Register(BrokerHeartbeat, func(_ *Conn, req *Command) (*Command, error) { got <- req; return nil, nil })
	c := dial(t, addr, ClientOptions{})
	require.NoError(t, c.InvokeOneway(NewRequest(BrokerHeartbeat, map[string]string{"brokerName": "b"}, nil)))
	require.NoError(t, c.Close())
	select {
	case req := <-got:
		require.Equal(t, "b", req.ExtFields["brokerName"])
	case <-time.After(5 * time.Second):
		t.Fatal("oneway sent just before Close was lost")
	}
}

func TestClientDoneWhenServerCloses(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{})
	conns := connCatcher(s)
	closed := make(chan uint64, 1)
	s.OnConnClose(func(c *Conn) { closed <- c.ID() })
	c := dial(t, addr, ClientOptions{})
	invoke(t, c, NewRequest(1, nil, nil))
	sc := <-conns
	require.NoError(t, sc.Close())
	<-c.Done()
	require.Equal(t, sc.ID(), <-closed)
	c2 := dial(t, addr, ClientOptions{})
	invoke(t, c2, NewRequest(1, nil, nil))
	require.Greater(t, (<-conns).ID(), sc.ID(), "connection ids increase")
}

func TestDialError(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := Dial(ctx, "127.0.0.1:1", ClientOptions{})
	require.Error(t, err)
}
