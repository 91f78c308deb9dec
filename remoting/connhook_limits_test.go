package remoting

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
)

// TestAttackPanickingConnHook: a ConnHook that panics (a bug in a PROXY
// parser or a TLS hook, reached by whatever bytes a stranger sends first)
// runs on the connection's own goroutine, outside any recover: it killed
// the whole process. It must close that connection only, free its slot,
// be reported through OnPanic (code -1), and leave other clients served.
func TestAttackPanickingConnHook(t *testing.T) {
	var panics atomic.Int32
	hook := func(nc net.Conn) (net.Conn, error) {
		b := make([]byte, 1)
		if _, err := io.ReadFull(nc, b); err != nil {
			return nil, err
		}
		if b[0] == 0xff {
			panic("hook bug")
		}
		return Replay(nc, b, nil), nil
	}
	s, addr := newTestServer(t, ServerConfig{MaxConnections: 1, ConnHooks: []ConnHook{hook},
		OnPanic: func(code int32, _ any) {
			if code == -1 {
				panics.Add(1)
			}
		}})
	s.Register(77, func(_ *Conn, req *Command) (*Command, error) { return NewResponse(req, Success, ""), nil })
	for range 3 { // each one must give its slot back (MaxConnections is 1)
		nc, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_, err = nc.Write([]byte{0xff})
		require.NoError(t, err)
		_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = nc.Read(make([]byte, 1))
		require.ErrorIs(t, err, io.EOF, "the panicking connection is closed")
		_ = nc.Close()
		poll.Until(t, "slot freed", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.shaking) == 0 }))
	}
	require.EqualValues(t, 3, panics.Load())
	resp := invoke(t, dial(t, addr, ClientOptions{}), NewRequest(77, nil, nil))
	require.EqualValues(t, Success, resp.Code, "other clients are still served")
}

// TestAttackShutdownWhileHooksBlock: connections that sent nothing hold
// their hooks (reading, under a one-minute handshake timeout) when
// Shutdown starts; Shutdown closes them and returns without waiting for
// the timeout, and every slot is free.
func TestAttackShutdownWhileHooksBlock(t *testing.T) {
	hook := func(nc net.Conn) (net.Conn, error) {
		_, err := nc.Read(make([]byte, 1))
		return nc, err
	}
	s := NewServer(ServerConfig{Logger: testLogger(t), HandshakeTimeout: time.Minute, ConnHooks: []ConnHook{hook}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	for range 5 {
		nc, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		defer nc.Close()
	}
	poll.Until(t, "all in their hooks", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.shaking) == 5 }))
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(context.Background()) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Shutdown waits for the handshake timeout")
	}
	require.NoError(t, <-served)
	s.mu.Lock()
	defer s.mu.Unlock()
	require.Empty(t, s.shaking)
	require.Empty(t, s.conns)
}

// TestAttackOverLimitLogBounded: every connection refused over
// MaxConnections logged a warning, so a connection flood wrote a log line
// per connection. The refusals are logged at most once a second, the next
// line counting those left out.
func TestAttackOverLimitLogBounded(t *testing.T) {
	logger, logs := testlog.Capture(t, "remoting", hclog.Warn)
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	var clock sync.Mutex
	s := NewServer(ServerConfig{MaxConnections: 1, Logger: logger})
	s.now = func() time.Time { clock.Lock(); defer clock.Unlock(); return now }
	addr := startServer(t, s)
	c := dial(t, addr, ClientOptions{})
	require.EqualValues(t, RequestCodeNotSupported, invoke(t, c, NewRequest(77, nil, nil)).Code)
	refused := func() {
		nc, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer nc.Close()
		_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = nc.Read(make([]byte, 1))
		require.ErrorIs(t, err, io.EOF)
	}
	for range 50 {
		refused()
	}
	poll.Until(t, "a warning", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { return logs.Has("over the connection limit") }))
	require.Equal(t, 1, logs.Count("over the connection limit"), logs.String())
	clock.Lock()
	now = now.Add(time.Second)
	clock.Unlock()
	refused()
	poll.Until(t, "the next warning", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { return logs.Has("suppressed=49") }))
	require.Equal(t, 2, logs.Count("over the connection limit"), logs.String())
}

// TestAttackBadFrameLogBounded: every connection closed on a bad frame
// logged a warning, so anyone could write a log line per connection by
// sending four bytes. The closes are still counted one by one
// (Observer.FrameRejected) but logged at most once a second.
func TestAttackBadFrameLogBounded(t *testing.T) {
	logger, logs := testlog.Capture(t, "remoting", hclog.Warn)
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	s := NewServer(ServerConfig{Logger: logger})
	s.now = func() time.Time { return now }
	addr := startServer(t, s)
	for range 30 {
		nc, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_, err = nc.Write([]byte{0xff, 0xff, 0xff, 0xff}) // a negative frame length
		require.NoError(t, err)
		_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = nc.Read(make([]byte, 1))
		require.Error(t, err)
		_ = nc.Close()
	}
	poll.Until(t, "all closed", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.conns) == 0 }))
	require.Equal(t, 1, logs.Count("closing connection on bad frame"), logs.String())
}

// TestAttackOverLimitCountedBeforeClose: a refused connection was closed
// before its refusal was counted, so a peer that saw EOF could not rely on
// the count, and a clock step right after it (as in
// TestAttackOverLimitLogBounded, which failed in CI with suppressed=48)
// logged the refusal in the next window. The clock here is slow to read,
// which made every refusal seen before it was counted.
func TestAttackOverLimitCountedBeforeClose(t *testing.T) {
	s := NewServer(ServerConfig{MaxConnections: 1, Logger: testLogger(t)})
	var counted atomic.Int64 // clock reads done: one per refusal, before Allow
	s.now = func() time.Time {
		time.Sleep(20 * time.Millisecond)
		counted.Add(1)
		return time.Now()
	}
	addr := startServer(t, s)
	c := dial(t, addr, ClientOptions{})
	require.EqualValues(t, RequestCodeNotSupported, invoke(t, c, NewRequest(77, nil, nil)).Code)
	for i := range 5 {
		nc, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = nc.Read(make([]byte, 1))
		require.ErrorIs(t, err, io.EOF)
		_ = nc.Close()
		require.EqualValues(t, i+1, counted.Load(), "refusal %d seen before it was counted", i+1)
	}
}
