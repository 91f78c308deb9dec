package remoting

import (
	"fmt"
	"net"
	"runtime/debug"
	"time"

	"github.com/hashicorp/go-hclog"
)

// DefaultHandshakeTimeout bounds the ConnHooks of one connection (a PROXY
// header and a TLS handshake), like Netty's handshake timeout of 10 s.
const DefaultHandshakeTimeout = 10 * time.Second

// ConnHook prepares a new server connection before its first frame is
// read, on that connection's goroutine. It may read a preamble (a PROXY
// protocol header), wrap the connection (TLS), or refuse it by returning an
// error: the connection is then closed without a reply. The returned
// connection's RemoteAddr is the address the server reports for it. A hook
// must not keep nc's read deadline; the server sets one for all hooks.
type ConnHook func(nc net.Conn) (net.Conn, error)

// runHooks runs the ConnHooks of raw within HandshakeTimeout and returns
// the connection to serve (raw itself when there are none). On error the
// returned connection is the one to close.
func (s *Server) runHooks(raw net.Conn) (net.Conn, error) {
	if len(s.cfg.ConnHooks) == 0 {
		return raw, nil
	}
	nc := raw
	_ = raw.SetDeadline(time.Now().Add(s.cfg.HandshakeTimeout))
	for i, hook := range s.cfg.ConnHooks {
		next, err := s.runHook(i, hook, nc)
		if err != nil {
			return nc, err
		}
		nc = next
	}
	if err := nc.SetDeadline(time.Time{}); err != nil {
		return nc, fmt.Errorf("remoting: clear handshake deadline: %w", err)
	}
	return nc, nil
}

// runHook runs hook i on nc. A panic, or a nil connection without an
// error, refuses the connection instead of killing the process; a panic is
// logged with its stack and reported to OnPanic with code -1.
func (s *Server) runHook(i int, hook ConnHook, nc net.Conn) (next net.Conn, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("connection hook panicked", "hook", i, "remote", nc.RemoteAddr().String(),
				"panic", r, "stack", hclog.CapturedStacktrace(debug.Stack()))
			if s.cfg.OnPanic != nil {
				s.cfg.OnPanic(-1, r)
			}
			next, err = nil, fmt.Errorf("%w: connection hook %d panicked: %v", ErrBadHook, i, r)
		}
	}()
	next, err = hook(nc)
	switch {
	case err != nil:
		return nil, fmt.Errorf("remoting: connection hook %d: %w", i, err)
	case next == nil:
		return nil, fmt.Errorf("%w: connection hook %d returned no connection", ErrBadHook, i)
	}
	return next, nil
}

// Replay returns nc reading prefix first, then nc itself: a ConnHook that
// read past what it needed (the byte a TLS sniff peeked at, the bytes
// buffered behind a PROXY header) hands them back to the next reader.
// When remote is not nil it becomes the connection's RemoteAddr.
func Replay(nc net.Conn, prefix []byte, remote net.Addr) net.Conn {
	return &replayConn{Conn: nc, rest: prefix, remote: remote}
}

type replayConn struct {
	net.Conn
	rest   []byte
	remote net.Addr // nil: nc's
}

// Read returns the replayed bytes first, then reads the connection.
func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.rest) > 0 {
		n := copy(p, c.rest)
		c.rest = c.rest[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// RemoteAddr is the address given to Replay, or the connection's own.
func (c *replayConn) RemoteAddr() net.Addr {
	if c.remote != nil {
		return c.remote
	}
	return c.Conn.RemoteAddr()
}
