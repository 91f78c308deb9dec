//go:build embedded_controller

package raftstore

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/internal/connlimit"
	"github.com/rmqgo/nameserver/internal/lograte"
)

// DefaultHandshakeTimeout bounds a TLS handshake on the Raft transport,
// inbound and outbound.
const DefaultHandshakeTimeout = 5 * time.Second

// TLSStreamLayer is a raft.StreamLayer over mutual TLS. Accept returns
// server-side connections whose handshake runs on the connection's own
// goroutine at its first Read or Write, bounded by the handshake timeout,
// so a stalled or hostile peer never holds up the accept loop; Dial
// handshakes before it returns. Which certificates are presented and
// trusted is the tls.Configs' business (certreload builds them).
type TLSStreamLayer struct {
	ln        *connlimit.Listener
	advertise net.Addr
	server    *tls.Config
	client    *tls.Config
	timeout   atomic.Int64 // ns
	logger    hclog.Logger
	accepted  atomic.Uint64
	failed    atomic.Uint64
	// inLogs bounds the warnings of failed inbound handshakes, which
	// anyone who reaches the port can cause.
	inLogs lograte.Limiter
}

// inboundLogEvery is the rate of inbound handshake warnings.
const inboundLogEvery = time.Second

// NewTLSStreamLayer listens on bindAddr, its inbound connections bounded
// by in. advertiseAddr is what peers dial; empty means the listener's
// address, which must not be unspecified. Failures wrap ErrBind and name
// the address.
func NewTLSStreamLayer(bindAddr, advertiseAddr string, server, client *tls.Config, in Inbound,
	logger hclog.Logger) (*TLSStreamLayer, error) {
	if logger == nil {
		logger = hclog.Default()
	}
	ln, err := net.Listen("tcp", bindAddr)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBind, bindAddr, err)
	}
	logger = lograte.Wrap(logger) // a failed handshake is a stranger's line
	l := &TLSStreamLayer{ln: in.wrap(ln, false, logger), advertise: ln.Addr(), server: server, client: client,
		logger: logger.Named("tls"), inLogs: lograte.Limiter{Every: inboundLogEvery}}
	l.timeout.Store(int64(DefaultHandshakeTimeout))
	if advertiseAddr != "" {
		l.advertise, err = net.ResolveTCPAddr("tcp", advertiseAddr)
	}
	if a, ok := l.advertise.(*net.TCPAddr); err == nil && (!ok || a.IP == nil || a.IP.IsUnspecified()) {
		err = fmt.Errorf("address %s is not advertisable", l.advertise)
	}
	if err != nil {
		_ = l.ln.Close() // and leaves the budget
		return nil, fmt.Errorf("%w: %s: %w", ErrBind, bindAddr, err)
	}
	return l, nil
}

// NewTLSTransport is NewBoundedTCPTransport over a TLSStreamLayer.
func NewTLSTransport(bindAddr, advertiseAddr string, server, client *tls.Config, in Inbound,
	logger hclog.Logger) (*raft.NetworkTransport, error) {
	if logger == nil {
		logger = hclog.Default()
	}
	l, err := NewTLSStreamLayer(bindAddr, advertiseAddr, server, client, in, logger)
	if err != nil {
		return nil, err
	}
	return l.Transport(logger), nil
}

// Transport returns a Raft network transport over l, pooled and timed
// like NewTCPTransport's. It owns l: closing it closes l.
func (l *TLSStreamLayer) Transport(logger hclog.Logger) *raft.NetworkTransport {
	return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream: l, MaxPool: transportMaxPool, Timeout: transportTimeout,
		Logger: newTransportLogger(lograte.Wrap(logger)), // see NewTCPTransport
	})
}

// SetHandshakeTimeout changes the handshake bound for new connections.
func (l *TLSStreamLayer) SetHandshakeTimeout(d time.Duration) { l.timeout.Store(int64(d)) }

func (l *TLSStreamLayer) handshakeTimeout() time.Duration { return time.Duration(l.timeout.Load()) }

// Handshakes reports the inbound handshakes that succeeded and failed.
func (l *TLSStreamLayer) Handshakes() (ok, failed uint64) {
	return l.accepted.Load(), l.failed.Load()
}

// Accept waits for the next TCP connection and wraps it; the handshake
// happens later, on the connection's goroutine.
func (l *TLSStreamLayer) Accept() (net.Conn, error) {
	c, err := l.ln.Accept()
	if err != nil {
		return nil, err
	}
	return &serverConn{Conn: tls.Server(c, l.server), layer: l}, nil
}

// Close stops listening; open connections are the transport's to close.
func (l *TLSStreamLayer) Close() error { return l.ln.Close() }

// Addr is the advertised address.
func (l *TLSStreamLayer) Addr() net.Addr { return l.advertise }

// Dial connects to a peer and completes the handshake within timeout
// (at most the handshake timeout). TCP errors are returned as they are,
// a failed handshake's wrapped: raft's RPC fails with it, and the peer
// error log writes it once per outage (peerlog.go), not once a dial.
func (l *TLSStreamLayer) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	if limit := l.handshakeTimeout(); timeout <= 0 || timeout > limit {
		timeout = limit
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	raw, err := (&net.Dialer{}).DialContext(ctx, "tcp", string(address))
	if err != nil {
		return nil, err
	}
	c := tls.Client(raw, l.clientFor(string(address)))
	if err := c.HandshakeContext(ctx); err != nil {
		_ = raw.Close()
		l.logger.Debug("raft peer refused: tls handshake failed", "peer", address, "direction", "out", "error", err)
		return nil, fmt.Errorf("raft peer refused: tls handshake failed: %w", err) // the peer error log writes it
	}
	return c, nil
}

// clientFor is the client config, with ServerName set from address when
// empty (as tls.Dial does; a config that verifies host names needs it).
func (l *TLSStreamLayer) clientFor(address string) *tls.Config {
	if l.client.ServerName != "" {
		return l.client
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return l.client
	}
	cfg := l.client.Clone()
	cfg.ServerName = host
	return cfg
}

// serverConn is an accepted *tls.Conn that handshakes, bounded, before
// its first Read or Write.
type serverConn struct {
	*tls.Conn
	layer *TLSStreamLayer
	once  sync.Once
	err   error
}

func (c *serverConn) handshake() error {
	c.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), c.layer.handshakeTimeout())
		defer cancel()
		if c.err = c.Conn.HandshakeContext(ctx); c.err != nil {
			c.layer.failed.Add(1)
			if ok, n := c.layer.inLogs.Allow(time.Now()); ok {
				c.layer.logger.Warn("raft peer refused: tls handshake failed", "remote", c.RemoteAddr().String(),
					"direction", "in", "error", c.err, "suppressed", n)
			}
			_ = c.Conn.Close()
			return
		}
		c.layer.accepted.Add(1)
		connlimit.Prove(c.NetConn()) // a peer: strangers over the cap never take its place
	})
	return c.err
}

// Read handshakes first.
func (c *serverConn) Read(b []byte) (int, error) {
	if err := c.handshake(); err != nil {
		return 0, err
	}
	return c.Conn.Read(b)
}

// Write handshakes first.
func (c *serverConn) Write(b []byte) (int, error) {
	if err := c.handshake(); err != nil {
		return 0, err
	}
	return c.Conn.Write(b)
}
