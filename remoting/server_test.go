package remoting

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
)

// echo answers SUCCESS with the request's ext fields.
func echo(_ *Conn, req *Command) (*Command, error) {
	resp := NewResponse(req, Success, "")
	resp.ExtFields = req.ExtFields
	resp.Body = req.Body
	return resp, nil
}

// rawConn is a plain TCP connection for byte-level tests.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = nc.Close() })
	return &rawConn{t: t, nc: nc, r: bufio.NewReader(nc)}
}

func (r *rawConn) send(b []byte) {
	_, err := r.nc.Write(b)
	require.NoError(r.t, err)
}

func (r *rawConn) read() (*Command, error) {
	_ = r.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	f, err := ReadFrame(r.r, 0, nil)
	if err != nil {
		return nil, err
	}
	return DecodeFrame(f)
}

// expectClosed waits for the server to close the connection.
func (r *rawConn) expectClosed() {
	_, err := r.read()
	require.ErrorIs(r.t, err, io.EOF)
}

func TestServerUnknownCode(t *testing.T) {
	_, addr := newTestServer(t, ServerConfig{})
	c := dial(t, addr, ClientOptions{})
	resp := invoke(t, c, NewRequest(9999, nil, nil))
	require.Equal(t, RequestCodeNotSupported, resp.Code)
	require.Equal(t, " request type 9999 not supported", resp.Remark)
	require.True(t, resp.IsResponse())
}

func TestServerHandlerErrorAndPanic(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{})
	s.Register(1, func(*Conn, *Command) (*Command, error) { return nil, errors.New("boom") })
	s.Register(2, func(*Conn, *Command) (*Command, error) { panic("kaboom") })
	s.Register(3, echo)
	c := dial(t, addr, ClientOptions{})
	resp := invoke(t, c, NewRequest(1, nil, nil))
	require.Equal(t, SystemError, resp.Code)
	require.Equal(t, "boom", resp.Remark)
	resp = invoke(t, c, NewRequest(2, nil, nil))
	require.Equal(t, SystemError, resp.Code)
	require.Equal(t, "panic: kaboom", resp.Remark)
	resp = invoke(t, c, NewRequest(3, map[string]string{"k": "v"}, []byte("body")))
	require.Equal(t, Success, resp.Code)
	require.Equal(t, map[string]string{"k": "v"}, resp.ExtFields)
	require.Equal(t, []byte("body"), resp.Body)
}

func TestServerOnewayAndNilResponse(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{})
	var calls atomic.Int32
	s.Register(1, func(c *Conn, req *Command) (*Command, error) { calls.Add(1); return echo(c, req) })
	s.Register(2, func(*Conn, *Command) (*Command, error) { calls.Add(1); return nil, nil })
	s.Register(3, func(*Conn, *Command) (*Command, error) { return nil, errors.New("not sent for oneway") })
	r := dialRaw(t, addr)
	oneway := &Command{Code: 1, Opaque: 10, Flag: FlagOneway}
	r.send(frameOf(t, oneway))
	r.send(frameOf(t, &Command{Code: 3, Opaque: 11, Flag: FlagOneway}))
	r.send(frameOf(t, &Command{Code: 2, Opaque: 12}))
	r.send(frameOf(t, &Command{Code: 1, Opaque: 13}))
	resp, err := r.read()
	require.NoError(t, err)
	require.Equal(t, int32(13), resp.Opaque, "oneway and nil responses write nothing")
	require.Equal(t, int32(3), calls.Load())
}

func TestServerFixesResponseAndDropsUnmatched(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{})
	canned := &Command{Code: Success, Language: LanguageJava, Body: []byte("x")}
	s.Register(1, func(*Conn, *Command) (*Command, error) { return canned, nil })
	r := dialRaw(t, addr)
	r.send(frameOf(t, &Command{Code: 0, Opaque: 99, Flag: FlagResponse})) // nobody waits for it
	r.send(frameOf(t, &Command{Code: 1, Opaque: 5}))
	resp, err := r.read()
	require.NoError(t, err)
	require.Equal(t, int32(5), resp.Opaque)
	require.True(t, resp.IsResponse())
	require.Equal(t, int32(0), canned.Opaque, "shared response not modified")
}

func TestServerRocketMQRequest(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{})
	s.Register(GetRouteinfoByTopic, echo)
	r := dialRaw(t, addr)
	r.send(frameOf(t, &Command{Code: GetRouteinfoByTopic, Opaque: 3, Version: 479,
		ExtFields: map[string]string{"topic": "T"}, SerializeType: SerializeRocketMQ}))
	resp, err := r.read()
	require.NoError(t, err)
	require.Equal(t, SerializeJSON, resp.SerializeType, "responses use the server's type")
	require.Equal(t, map[string]string{"topic": "T"}, resp.ExtFields)
}

type countingObserver struct {
	mu       sync.Mutex
	rejected []string
	done     int
	opened   int
	closed   int
}

func (o *countingObserver) RequestDone(int32, int32, time.Duration) {
	o.mu.Lock()
	o.done++
	o.mu.Unlock()
}

func (o *countingObserver) FrameRejected(reason string) {
	o.mu.Lock()
	o.rejected = append(o.rejected, reason)
	o.mu.Unlock()
}

func (o *countingObserver) ConnOpened() { o.mu.Lock(); o.opened++; o.mu.Unlock() }
func (o *countingObserver) ConnClosed() { o.mu.Lock(); o.closed++; o.mu.Unlock() }

func (o *countingObserver) snapshot() ([]string, int, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.rejected...), o.opened, o.closed
}

func TestServerBadFramesCloseOnlyThatConnection(t *testing.T) {
	obs := &countingObserver{}
	s, addr := newTestServer(t, ServerConfig{MaxFrameLength: 1 << 20, Observer: obs})
	s.Register(1, echo)
	good := dial(t, addr, ClientOptions{})
	for _, tc := range []struct {
		name, reason string
		frame        []byte
		halfClose    bool
	}{
		{"oversized", "frame_too_large", lengthPrefix(1 << 20), false},
		{"negative", "bad_frame_length", lengthPrefix(-5), false},
		{"short", "bad_frame_length", lengthPrefix(2, 0, 0), false},
		{"truncated", "frame_truncated", lengthPrefix(100, 0, 0, 0, 2, '{', '}'), true},
		{"bad type", "bad_serialize_type", lengthPrefix(6, 7, 0, 0, 2, '{', '}'), false},
		{"header beyond frame", "bad_header", lengthPrefix(6, 0, 0, 0, 9, '{', '}'), false},
		{"garbage json", "bad_header", lengthPrefix(8, 0, 0, 0, 4, 'j', 'u', 'n', 'k'), false},
		{"garbage binary", "bad_header", lengthPrefix(8, 1, 0, 0, 4, 'j', 'u', 'n', 'k'), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dialRaw(t, addr)
			r.send(tc.frame)
			if tc.halfClose {
				require.NoError(t, r.nc.(*net.TCPConn).CloseWrite())
			}
			r.expectClosed()
			poll.Until(t, tc.reason, 5*time.Second, 2*time.Millisecond, poll.True(func() bool {
				rej, _, _ := obs.snapshot()
				return len(rej) > 0 && rej[len(rej)-1] == tc.reason
			}))
			require.Equal(t, Success, invoke(t, good, NewRequest(1, nil, nil)).Code)
		})
	}
}

func TestServerIdleClose(t *testing.T) {
	const idleTimeout = 400 * time.Millisecond // generous: -race on a loaded machine
	s, addr := newTestServer(t, ServerConfig{IdleTimeout: idleTimeout})
	s.Register(1, echo)
	closed := make(chan uint64, 4)
	s.OnConnClose(func(c *Conn) { closed <- c.ID() })

	busy := dial(t, addr, ClientOptions{})
	start := time.Now()
	for time.Since(start) < 3*idleTimeout {
		require.Equal(t, Success, invoke(t, busy, NewRequest(1, nil, nil)).Code)
		time.Sleep(20 * time.Millisecond) // pacing the traffic, not an assertion
	}
	select {
	case <-busy.Done():
		t.Fatal("an active connection was closed as idle")
	default:
	}

	idle := dialRaw(t, addr)
	idle.expectClosed()
	require.GreaterOrEqual(t, time.Since(start), idleTimeout)
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("OnConnClose not called")
	}
}

func TestServerShutdownDrainsInFlight(t *testing.T) {
	s := NewServer(ServerConfig{Logger: testLogger(t)})
	started, release := make(chan struct{}), make(chan struct{})
	s.Register(1, func(c *Conn, req *Command) (*Command, error) {
		close(started)
		<-release
		return NewResponse(req, Success, "slow done"), nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	c := dial(t, ln.Addr().String(), ClientOptions{})

	got := make(chan *Command, 1)
	go func() {
		resp, err := c.Invoke(context.Background(), NewRequest(1, nil, nil))
		if err == nil {
			got <- resp
		}
		close(got)
	}()
	<-started
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	poll.Until(t, "listener closed", 5*time.Second, 2*time.Millisecond, poll.True(func() bool {
		_, err = net.DialTimeout("tcp", ln.Addr().String(), time.Second)
		return err != nil
	}))
	close(release)
	resp := <-got
	require.NotNil(t, resp, "the in-flight response must arrive")
	require.Equal(t, "slow done", resp.Remark)
	require.NoError(t, <-shut)
	require.NoError(t, <-served)
	<-c.Done()
	require.ErrorIs(t, s.Serve(ln), ErrClosed)
}

func TestServerShutdownDeadline(t *testing.T) {
	s := NewServer(ServerConfig{Logger: testLogger(t)})
	release := make(chan struct{})
	started := make(chan struct{})
	s.Register(1, func(c *Conn, req *Command) (*Command, error) {
		close(started)
		<-release
		return nil, nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = s.Serve(ln) }()
	c := dial(t, ln.Addr().String(), ClientOptions{})
	require.NoError(t, c.InvokeOneway(NewRequest(1, nil, nil)))
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	go func() { <-ctx.Done(); close(release) }()
	require.ErrorIs(t, s.Shutdown(ctx), context.DeadlineExceeded)
}

// A registration bigger than Java's 16 MiB limit gets through.
func TestServerLargeFrame(t *testing.T) {
	s, addr := newTestServer(t, ServerConfig{})
	s.Register(RegisterBroker, func(_ *Conn, req *Command) (*Command, error) {
		return NewResponse(req, Success, fmt.Sprint(len(req.Body))), nil
	})
	c := dial(t, addr, ClientOptions{})
	body := make([]byte, 20<<20)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := c.Invoke(ctx, NewRequest(RegisterBroker, map[string]string{"brokerName": "b"}, body))
	require.NoError(t, err)
	require.Equal(t, fmt.Sprint(20<<20), resp.Remark)
}

func TestServerObserver(t *testing.T) {
	obs := &countingObserver{}
	s, addr := newTestServer(t, ServerConfig{Observer: obs})
	s.Register(1, echo)
	c := dial(t, addr, ClientOptions{})
	invoke(t, c, NewRequest(1, nil, nil))
	invoke(t, c, NewRequest(2, nil, nil))
	require.NoError(t, c.Close())
	poll.Until(t, "conn hooks", 5*time.Second, 2*time.Millisecond, poll.True(func() bool { _, opened, closed := obs.snapshot(); return opened == 1 && closed == 1 }))
	obs.mu.Lock()
	defer obs.mu.Unlock()
	require.Equal(t, 2, obs.done)
}
