//go:build embedded_controller

package controllertest

import (
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// network is the fault-injecting Raft network of a test cluster: one TCP
// proxy per ordered pair of nodes. Node i's transport reaches node j (at
// j's configured Raft address) through link i->j, so every RPC i sends j,
// and its reply, crosses that link. Cutting i->j alone is a one-way
// partition of RPCs: i cannot reach j, j still reaches i.
type network struct {
	t     testing.TB
	mu    sync.Mutex
	links map[[2]string]*link  // by {from, to}
	route map[[2]string]string // {from, to's raft address} -> proxy address
}

func newNetwork(t testing.TB) *network {
	return &network{t: t, links: map[[2]string]*link{}, route: map[[2]string]string{}}
}

// linkFaults are the faults of one directed link.
type linkFaults struct {
	cut   bool          // refuse new connections, close open ones
	delay time.Duration // hold every chunk, either way, this long
	loss  float64       // reset the connection at a chunk with this chance
}

// link is one directed proxy.
type link struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	faults linkFaults
	rng    *rand.Rand
	conns  map[net.Conn]struct{}
	closed bool
}

// addLink starts the proxy from -> to, forwarding to toAddr.
func (n *network) addLink(from, to, toAddr string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(n.t, err)
	n.mu.Lock()
	l := &link{ln: ln, target: toAddr, conns: map[net.Conn]struct{}{},
		rng: rand.New(rand.NewPCG(uint64(len(n.links)), 7))}
	n.links[[2]string{from, to}] = l
	n.route[[2]string{from, toAddr}] = ln.Addr().String()
	n.mu.Unlock()
	go l.serve()
	n.t.Cleanup(l.close)
}

// set replaces the faults of the link from -> to.
func (n *network) set(from, to string, f linkFaults) {
	n.mu.Lock()
	l := n.links[[2]string{from, to}]
	n.mu.Unlock()
	l.update(f)
}

// heal clears every link's faults.
func (n *network) heal() {
	n.mu.Lock()
	var keys [][2]string
	for k := range n.links {
		keys = append(keys, k)
	}
	n.mu.Unlock()
	for _, k := range keys {
		n.set(k[0], k[1], linkFaults{})
	}
}

// dialer returns node from's Dial: the proxy for a known peer address.
func (n *network) dialer(from string) func(addr string, timeout time.Duration) (net.Conn, error) {
	return func(addr string, timeout time.Duration) (net.Conn, error) {
		n.mu.Lock()
		proxy, ok := n.route[[2]string{from, addr}]
		n.mu.Unlock()
		if ok {
			addr = proxy
		}
		return net.DialTimeout("tcp", addr, timeout)
	}
}

func (l *link) serve() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		go l.handle(c)
	}
}

// handle pipes one accepted connection to the target unless cut.
func (l *link) handle(in net.Conn) {
	l.mu.Lock()
	cut, closed := l.faults.cut, l.closed
	l.mu.Unlock()
	if cut || closed {
		_ = in.Close()
		return
	}
	out, err := net.DialTimeout("tcp", l.target, time.Second)
	if err != nil {
		_ = in.Close()
		return
	}
	l.track(in, out)
	done := make(chan struct{}, 2)
	go l.pipe(out, in, done)
	go l.pipe(in, out, done)
	<-done
	_, _ = in.Close(), out.Close()
	<-done
	l.untrack(in, out)
}

// pipe copies src to dst, holding every chunk for the link's delay; a
// cut or a lost chunk ends it (handle then closes both ends).
func (l *link) pipe(dst, src net.Conn, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			l.mu.Lock()
			f := l.faults
			lost := f.loss > 0 && l.rng.Float64() < f.loss
			l.mu.Unlock()
			if f.cut || lost {
				return
			}
			delay := f.delay
			if delay > 0 {
				time.Sleep(delay)
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // EOF or closed: handle closes both ends
		}
	}
}

func (l *link) track(cs ...net.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range cs {
		l.conns[c] = struct{}{}
	}
}

func (l *link) untrack(cs ...net.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range cs {
		delete(l.conns, c)
	}
}

func (l *link) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	_ = l.ln.Close()
	l.update(linkFaults{cut: true})
}

// update sets the link's faults; a cut closes every open connection.
func (l *link) update(f linkFaults) {
	l.mu.Lock()
	l.faults = f
	var drop []net.Conn
	if f.cut {
		for c := range l.conns {
			drop = append(drop, c)
		}
	}
	l.mu.Unlock()
	for _, c := range drop {
		_ = c.Close()
	}
}

// streamLayer is a raft.StreamLayer on a listener whose dials go through
// the network's proxies.
type streamLayer struct {
	net.Listener
	dial func(addr string, timeout time.Duration) (net.Conn, error)
}

// Dial implements raft.StreamLayer.
func (s *streamLayer) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return s.dial(string(addr), timeout)
}

// transport is node from's Raft transport on ln, dialing through n.
func (n *network) transport(from string, ln net.Listener, logger hclog.Logger) raft.Transport {
	return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream: &streamLayer{Listener: ln, dial: n.dialer(from)}, MaxPool: raftPool,
		Timeout: raftIOTimeout, Logger: logger.Named("transport"),
	})
}

// echoServer answers every line with itself.
func echoServer(t *testing.T) string {
	t.Helper()
	ln := listen(t, "127.0.0.1:0")
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); _ = c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// roundTrip dials addr through n as node "a" and echoes one message.
func roundTrip(n *network, addr string) error {
	c, err := n.dialer("a")(addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("ping")); err != nil {
		return err
	}
	buf := make([]byte, 4)
	_, err = io.ReadFull(c, buf)
	return err
}

func TestProxyCutDelayAndHeal(t *testing.T) {
	n := newNetwork(t)
	target := echoServer(t)
	n.addLink("a", "b", target)
	require.NoError(t, roundTrip(n, target), "healthy link")

	n.set("a", "b", linkFaults{cut: true})
	require.Error(t, roundTrip(n, target), "a cut link refuses")

	n.set("a", "b", linkFaults{loss: 1})
	require.Error(t, roundTrip(n, target), "a lossy link resets")

	n.set("a", "b", linkFaults{delay: 30 * time.Millisecond})
	start := time.Now()
	require.NoError(t, roundTrip(n, target))
	require.GreaterOrEqual(t, time.Since(start), 60*time.Millisecond, "both directions delayed")

	c, err := n.dialer("a")(target, time.Second)
	require.NoError(t, err)
	defer c.Close()
	n.set("a", "b", linkFaults{cut: true})
	_ = c.SetReadDeadline(time.Now().Add(waitLimit))
	_, err = c.Read(make([]byte, 1))
	require.Error(t, err, "a cut closes the open connections")
	n.heal()
	require.NoError(t, roundTrip(n, target), "healed")
}
