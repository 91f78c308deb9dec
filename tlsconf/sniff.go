package tlsconf

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/remoting"
)

// tlsHandshakeByte starts every TLS record carrying a handshake (the
// ClientHello): Java's HandshakeHandler tells TLS from the remoting
// protocol by it (a remoting frame starts with its length's high byte,
// 0x16 only for frames of 352 MiB and more).
const tlsHandshakeByte = 0x16

// Hook returns the remoting.ConnHook of a listener: it reads the first
// byte and, as Java's NettyRemotingServer.HandshakeHandler, serves TLS
// (0x16) or plaintext as tls.server.mode allows; what it does not allow is
// closed (disabled: TLS; enforcing: plaintext; and TLS when no certificate
// is configured). It works on any net.Conn (a PROXY-protocol hook may run
// before it).
func (m *Manager) Hook() remoting.ConnHook { return m.accept }

// ConnHooks returns the ConnHooks of a remoting listener: Hook when this
// process serves TLS, none when it serves plaintext only (no certificate,
// or tls.server.mode disabled), so that plaintext-only servers behave
// exactly as without TLS support (a TLS ClientHello is then closed by the
// frame decoder as an oversized frame). Nil-safe.
func (m *Manager) ConnHooks() []remoting.ConnHook {
	if m == nil || !m.ServesTLS() {
		return nil
	}
	return []remoting.ConnHook{m.Hook()}
}

func (m *Manager) accept(nc net.Conn) (net.Conn, error) {
	var b [1]byte
	if _, err := io.ReadFull(nc, b[:]); err != nil {
		return nil, fmt.Errorf("tls: read first byte: %w", err)
	}
	pc := remoting.Replay(nc, []byte{b[0]}, nil)
	if b[0] != tlsHandshakeByte {
		if m.Mode() == config.TLSModeEnforcing {
			m.log.Warn("closing a plaintext connection: tls.server.mode is enforcing", "remote", nc.RemoteAddr().String())
			return nil, fmt.Errorf("%w: plaintext on an enforcing listener", ErrTLSRefused)
		}
		return pc, nil
	}
	if !m.ServesTLS() {
		m.log.Warn("closing a tls connection: this server has no certificate or tls.server.mode is disabled",
			"remote", nc.RemoteAddr().String(), "mode", m.Mode())
		return nil, fmt.Errorf("%w: tls on a listener without tls", ErrTLSRefused)
	}
	tc := tls.Server(pc, m.serverTLS)
	if err := tc.Handshake(); err != nil {
		m.log.Debug("tls handshake failed", "remote", nc.RemoteAddr().String(), "error", err)
		return nil, fmt.Errorf("tls: handshake: %w", err)
	}
	return tc, nil
}

// Listener wraps ln (the metrics and health listener) so that each
// accepted connection is sniffed like the remoting ones, on its first Read
// or Write rather than in Accept (which must not block on one client).
// Like ConnHooks, it returns ln itself when this process serves plaintext
// only (and for a nil Manager).
func (m *Manager) Listener(ln net.Listener) net.Listener {
	if m == nil || !m.ServesTLS() {
		return ln
	}
	return &sniffListener{Listener: ln, m: m}
}

type sniffListener struct {
	net.Listener
	m *Manager
}

func (l *sniffListener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &lazyConn{Conn: nc, m: l.m}, nil
}

// lazyConn runs the hook on first use; a refused connection is closed and
// every call fails. Close closes the socket underneath (no TLS
// close_notify), which is all a metrics scrape needs.
type lazyConn struct {
	net.Conn
	m    *Manager
	once sync.Once
	c    net.Conn
	err  error
}

func (c *lazyConn) ready() (net.Conn, error) {
	c.once.Do(func() {
		c.c, c.err = c.m.accept(c.Conn)
		if c.err != nil {
			_ = c.Conn.Close()
		}
	})
	return c.c, c.err
}

func (c *lazyConn) Read(p []byte) (int, error) {
	nc, err := c.ready()
	if err != nil {
		return 0, err
	}
	return nc.Read(p)
}

func (c *lazyConn) Write(p []byte) (int, error) {
	nc, err := c.ready()
	if err != nil {
		return 0, err
	}
	return nc.Write(p)
}
