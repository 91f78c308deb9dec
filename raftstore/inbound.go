//go:build embedded_controller

package raftstore

import (
	"errors"
	"net"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/internal/connlimit"
)

// DefaultMaxInbound is the default cap on the transport's inbound
// connections (controllerRaftMaxInboundConnections): each peer holds at
// most transportMaxPool pooled connections, a pipeline and a snapshot
// stream to this node.
const DefaultMaxInbound = 128

// firstRPCTimeout closes an inbound connection that sends nothing this
// long after it was accepted: raft writes its first RPC as soon as it
// dialled, and a TLS handshake is bounded by the handshake timeout.
const firstRPCTimeout = transportTimeout

// Inbound bounds the transport's inbound connections; the zero value
// takes the defaults.
type Inbound struct {
	// MaxConns caps the open inbound connections; one accepted over it
	// takes the place of the oldest unproven one (not yet answered; with
	// TLS, not yet authenticated), or is closed at once when every one is
	// proven. 0 → DefaultMaxInbound.
	MaxConns int
	// Budget is shared with the process's other side listeners; nil
	// means connlimit.Side().
	Budget *connlimit.Budget
}

// wrap bounds ln by in. A connection is proven (a new one over the
// bounds never takes its place) by its first answer when proveOnWrite
// (plain TCP: its peer sent a whole RPC), else by connlimit.Prove (TLS:
// its peer's certificate was verified).
func (in Inbound) wrap(ln net.Listener, proveOnWrite bool, logger hclog.Logger) *connlimit.Listener {
	if in.MaxConns <= 0 {
		in.MaxConns = DefaultMaxInbound
	}
	return connlimit.Wrap(ln, connlimit.Config{Max: in.MaxConns, Budget: in.Budget,
		FirstReadTimeout: firstRPCTimeout, ProveOnWrite: proveOnWrite, Logger: logger.Named("inbound")})
}

// tcpStreamLayer is raft's TCPStreamLayer over a bounded listener.
type tcpStreamLayer struct {
	ln        *connlimit.Listener
	advertise net.Addr
}

// newTCPStreamLayer listens on bindAddr; advertise nil means the
// listener's address, which must then be advertisable.
func newTCPStreamLayer(bindAddr string, advertise net.Addr, in Inbound, logger hclog.Logger) (*tcpStreamLayer, error) {
	ln, err := net.Listen("tcp", bindAddr)
	if err != nil {
		return nil, err
	}
	l := &tcpStreamLayer{ln: in.wrap(ln, true, logger), advertise: advertise}
	if a, ok := l.Addr().(*net.TCPAddr); !ok || a.IP == nil || a.IP.IsUnspecified() {
		_ = l.ln.Close() // and leaves the budget
		return nil, errors.New("local bind address is not advertisable")
	}
	return l, nil
}

// Dial connects to a peer within timeout.
func (l *tcpStreamLayer) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("tcp", string(address), timeout)
}

// Accept returns the next inbound connection within the bounds.
func (l *tcpStreamLayer) Accept() (net.Conn, error) { return l.ln.Accept() }

// Close stops listening.
func (l *tcpStreamLayer) Close() error { return l.ln.Close() }

// Addr is the advertised address.
func (l *tcpStreamLayer) Addr() net.Addr {
	if l.advertise != nil {
		return l.advertise
	}
	return l.ln.Addr()
}
