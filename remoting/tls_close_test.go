package remoting

import (
	"crypto/tls"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testcerts"
)

// pipeListener hands out the server ends of in-memory pipes: a write
// blocks until the peer reads, as on a socket whose buffers a peer that
// stopped reading has filled.
type pipeListener struct {
	conns chan net.Conn
	once  sync.Once
	done  chan struct{}
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error   { l.once.Do(func() { close(l.done) }); return nil }
func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// dial returns the client end of a new pipe.
func (l *pipeListener) dial() net.Conn {
	client, server := net.Pipe()
	l.conns <- server
	return client
}

// TestAttackCloseDoesNotWaitOnTLSPeers: Close (and a Shutdown whose
// context ended) closes TLS connections whose peers stopped reading at
// once. tls.Conn.Close first sends a close_notify alert, waiting up to 5
// s for room to write it; done one connection after the other, a few such
// peers held a shutdown for 5 s each.
func TestAttackCloseDoesNotWaitOnTLSPeers(t *testing.T) {
	ca := testcerts.NewCA(t, "close-ca")
	cfg := &tls.Config{Certificates: []tls.Certificate{ca.Issue(t, testcerts.LeafOptions{}).TLS(t)},
		MinVersion: tls.VersionTLS12, SessionTicketsDisabled: true}
	hook := func(nc net.Conn) (net.Conn, error) {
		tc := tls.Server(nc, cfg)
		return tc, tc.Handshake()
	}
	s := NewServer(ServerConfig{Logger: testLogger(t), ConnHooks: []ConnHook{hook}})
	ln := newPipeListener()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	const peers = 3
	for range peers {
		tc := tls.Client(ln.dial(), &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", MinVersion: tls.VersionTLS12})
		require.NoError(t, tc.Handshake())
		t.Cleanup(func() { _ = tc.NetConn().Close() }) // never reads again
	}
	poll.Until(t, "len(s.openConns()) == peers", 10*time.Second, time.Millisecond, poll.True(func() bool { return len(s.openConns()) == peers }))

	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		require.NoError(t, err)
	case <-time.After(4 * time.Second): // under one close_notify wait
		t.Fatal("Close waits on TLS peers that do not read")
	}
	require.NoError(t, <-served)
}
