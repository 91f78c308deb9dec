package remoting

import (
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
)

// addrConn reports a fixed remote address, as a PROXY protocol hook does.
type addrConn struct {
	net.Conn
	remote net.Addr
}

func (c addrConn) RemoteAddr() net.Addr { return c.remote }

func TestConnHookWrapsConnectionAndSetsRemote(t *testing.T) {
	fake := &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 4567}
	s := NewServer(ServerConfig{Logger: testLogger(t), ConnHooks: []ConnHook{
		func(nc net.Conn) (net.Conn, error) { return addrConn{nc, fake}, nil },
	}})
	var seen atomic.Value
	s.Register(77, func(c *Conn, req *Command) (*Command, error) {
		seen.Store(c.RemoteAddr())
		return NewResponse(req, 0, ""), nil
	})
	addr := startServer(t, s)
	resp := invoke(t, dial(t, addr, ClientOptions{}), NewRequest(77, nil, nil))
	require.EqualValues(t, 0, resp.Code)
	require.Equal(t, "10.1.2.3:4567", seen.Load())
}

func TestConnHookErrorClosesConnection(t *testing.T) {
	_, addr := newTestServer(t, ServerConfig{ConnHooks: []ConnHook{
		func(nc net.Conn) (net.Conn, error) { return nil, errors.New("refused") },
	}})
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer nc.Close()
	_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = nc.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF)
}

// A connection still in its hooks holds a connection slot, and the
// handshake deadline closes one that never finishes.
func TestConnHookCountsAgainstLimitAndTimesOut(t *testing.T) {
	blocking := func(nc net.Conn) (net.Conn, error) {
		_, err := nc.Read(make([]byte, 1)) // ends at the handshake deadline
		return nc, err
	}
	s, addr := newTestServer(t, ServerConfig{MaxConnections: 1, HandshakeTimeout: 300 * time.Millisecond,
		ConnHooks: []ConnHook{blocking}})
	first, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer first.Close()
	poll.Until(t, "first in its hook", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.shaking) == 1 }))
	second, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer second.Close()
	_ = second.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = second.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF, "over the limit while the first handshakes")
	_ = first.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = first.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF, "closed at the handshake deadline")
}

// TestReplayReadsPrefixFirst: Replay hands back the bytes a hook read,
// then the connection's own, and reports the given address (or the
// connection's).
func TestReplayReadsPrefixFirst(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() { _, _ = b.Write([]byte("cd")) }()
	remote := &net.TCPAddr{IP: net.IPv4(203, 0, 113, 9), Port: 4000}
	c := Replay(a, []byte("ab"), remote)
	got := make([]byte, 4)
	_, err := io.ReadFull(c, got)
	require.NoError(t, err)
	require.Equal(t, "abcd", string(got))
	require.Equal(t, remote, c.RemoteAddr())
	require.Equal(t, a.RemoteAddr(), Replay(a, nil, nil).RemoteAddr())
}

// TestInvokeKeepsInflightBalanced: a request a Conn sends (Invoke) counts
// as a batch handed to the writer, as responses do; otherwise the writer's
// decrement drove the count negative, and a later response could be
// written inline (by the read loop) while a queued batch was unwritten,
// out of order. After the requests are answered the count is back to 0.
func TestInvokeKeepsInflightBalanced(t *testing.T) {
	s := NewServer(ServerConfig{Logger: testLogger(t)})
	s.Register(77, func(c *Conn, req *Command) (*Command, error) { return NewResponse(req, 0, ""), nil })
	c := dial(t, startServer(t, s), ClientOptions{})
	for range 3 {
		require.EqualValues(t, 0, invoke(t, c, NewRequest(77, nil, nil)).Code)
	}
	poll.Until(t, "inflight back to 0", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { return c.conn.inflight.Load() == 0 }))
	require.EqualValues(t, 0, c.conn.inflight.Load())
}
