package proxyproto

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/stretchr/testify/require"
)

// echoCode's handler records the connection's remote address.
const echoCode = 77

// addrServer is a remoting server with the PROXY hook that records the
// remote address each request arrived with.
type addrServer struct {
	addr string
	mu   sync.Mutex
	seen []string
}

func (a *addrServer) remotes() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}

func startHookServer(t *testing.T, trusted string) *addrServer {
	log := testlog.New(t, "proxyproto")
	s := remoting.NewServer(remoting.ServerConfig{Logger: log, HandshakeTimeout: 500 * time.Millisecond,
		ConnHooks: []remoting.ConnHook{Hook([]netip.Prefix{netip.MustParsePrefix(trusted)}, log)}})
	as := &addrServer{}
	s.Register(echoCode, func(c *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		as.mu.Lock()
		as.seen = append(as.seen, c.RemoteAddr())
		as.mu.Unlock()
		return remoting.NewResponse(req, 0, c.RemoteAddr()), nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, s.Shutdown(ctx))
	})
	as.addr = ln.Addr().String()
	return as
}

// roundTrip sends preamble and one request on a new connection and returns
// the response's remark (the address the server saw) or the read error.
func roundTrip(t *testing.T, addr string, preamble []byte) (string, error) {
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	out := remoting.EncodeFrame(append([]byte(nil), preamble...), remoting.NewRequest(echoCode, nil, nil))
	_, _ = nc.Write(out) // a refused connection may reset the write
	frame, err := remoting.ReadFrame(bufio.NewReader(nc), 0, nil)
	if err != nil {
		return "", err
	}
	resp, err := remoting.DecodeFrame(frame)
	require.NoError(t, err)
	return resp.Remark, nil
}

func TestHookTrustedSourceRevealsClient(t *testing.T) {
	s := startHookServer(t, "127.0.0.0/8")
	v1 := []byte("PROXY TCP4 192.0.2.1 198.51.100.2 56324 9876\r\n")
	got, err := roundTrip(t, s.addr, v1)
	require.NoError(t, err)
	require.Equal(t, "192.0.2.1:56324", got)

	v2 := v2Header(0x21, 0x21, v6Block("2001:db8::7", "2001:db8::1", 40000, 9876), nil)
	got, err = roundTrip(t, s.addr, v2)
	require.NoError(t, err)
	require.Equal(t, "[2001:db8::7]:40000", got)
	require.Equal(t, []string{"192.0.2.1:56324", "[2001:db8::7]:40000"}, s.remotes())
}

// A trusted proxy's own health check (LOCAL) and a direct client without
// a header keep the socket's address.
func TestHookTrustedSourceWithoutClientAddress(t *testing.T) {
	s := startHookServer(t, "127.0.0.0/8")
	for _, pre := range [][]byte{nil, v2Header(0x20, 0x00, nil, nil), []byte("PROXY UNKNOWN\r\n")} {
		got, err := roundTrip(t, s.addr, pre)
		require.NoError(t, err)
		require.Contains(t, got, "127.0.0.1:", "%q", pre)
	}
}

// A header from outside the trusted list is a spoofing attempt: the
// connection is closed before any request is handled. A plain client from
// there is served under its socket address.
func TestHookUntrustedSourceSpoofedHeaderCloses(t *testing.T) {
	s := startHookServer(t, "10.0.0.0/8")
	for _, spoof := range [][]byte{
		[]byte("PROXY TCP4 10.9.9.9 10.0.0.1 1234 9876\r\n"),
		v2Header(0x21, 0x11, v4Block("10.9.9.9", "10.0.0.1", 1234, 9876), nil),
	} {
		_, err := roundTrip(t, s.addr, spoof)
		requireClosed(t, err)
	}
	require.Empty(t, s.remotes(), "no request was handled")
	got, err := roundTrip(t, s.addr, nil)
	require.NoError(t, err)
	require.Contains(t, got, "127.0.0.1:")
}

// A truncated header is closed at the handshake timeout; a garbled one at
// once. Neither reaches a handler.
func TestHookTruncatedOrBadHeaderCloses(t *testing.T) {
	s := startHookServer(t, "127.0.0.0/8")
	full := v2Header(0x21, 0x11, v4Block("192.0.2.1", "198.51.100.2", 1, 2), nil)
	for _, pre := range [][]byte{
		[]byte("PROXY TCP4 192.0.2.1 198.5"),
		full[:20],
		[]byte("\r\n\r\n\x00\r"),
	} {
		nc, err := net.Dial("tcp", s.addr)
		require.NoError(t, err)
		_, err = nc.Write(pre)
		require.NoError(t, err)
		_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err = nc.Read(make([]byte, 1))
		requireClosed(t, err)
		_ = nc.Close()
	}
	_, err := roundTrip(t, s.addr, []byte("PROXY TCP4 999.1.1.1 198.51.100.2 1 2\r\n"))
	requireClosed(t, err)
	require.Empty(t, s.remotes())
}

// requireClosed accepts the ways a refused connection shows: EOF or reset.
func requireClosed(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	var ne net.Error
	if errors.As(err, &ne) {
		require.False(t, ne.Timeout(), "the server must close, not hang: %v", err)
		return
	}
	require.ErrorIs(t, err, io.EOF)
}
