package namesrv

import (
	"context"
	"crypto/tls"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/remoting"
)

// peerRedialPause is how long a peer that could not be dialled, or did not
// answer in time, is skipped, so that lookups do not each wait for it.
const peerRedialPause = time.Second

// peerTLS returns the tls.client.* material current at dial time (nil:
// plaintext); tlsconf.Manager.Client.
type peerTLS func() *tls.Config

// peerConn is the one connection to a warm-up peer, dialled when first
// needed and again after an error, closed at shutdown.
type peerConn struct {
	addr    string
	log     hclog.Logger
	tls     peerTLS
	mu      sync.Mutex
	c       *remoting.Client
	skipTil time.Time // after a failed dial or a timeout
	closed  bool
}

// invoke sends req to the peer within ctx.
func (p *peerConn) invoke(ctx context.Context, req *remoting.Command) (*remoting.Command, error) {
	c, err := p.client(ctx)
	if err != nil {
		return nil, err
	}
	resp, err := c.Invoke(ctx, req)
	switch {
	case err == nil:
	case ctx.Err() != nil: // a peer this slow is skipped for a while; its connection stays
		p.pause()
	default: // a broken connection
		p.drop(c)
	}
	return resp, err
}

// pause skips the peer for peerRedialPause.
func (p *peerConn) pause() {
	p.mu.Lock()
	p.skipTil = time.Now().Add(peerRedialPause)
	p.mu.Unlock()
}

// client returns the live connection, dialling one when there is none.
func (p *peerConn) client(ctx context.Context) (*remoting.Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed:
		return nil, ErrWarmupClosed
	case time.Now().Before(p.skipTil):
		return nil, ErrPeerUnreachable
	case p.c != nil && !isDone(p.c.Done()):
		return p.c, nil
	}
	c, err := remoting.Dial(ctx, p.addr, remoting.ClientOptions{Logger: p.log, TLS: p.tls()})
	if err != nil {
		p.skipTil = time.Now().Add(peerRedialPause)
		return nil, err
	}
	p.c = c
	return c, nil
}

// drop closes c unless it was already replaced.
func (p *peerConn) drop(c *remoting.Client) {
	p.mu.Lock()
	if p.c == c {
		p.c = nil
	}
	p.mu.Unlock()
	_ = c.Close()
}

// close closes the connection and refuses new ones.
func (p *peerConn) close() {
	p.mu.Lock()
	c := p.c
	p.c, p.closed = nil, true
	p.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// isSelf reports whether the peer entry addr names this node listening on
// listen: same port, and this machine's host name, localhost (bound to a
// wildcard or loopback address), or an IP that is the bind address or
// (bound to a wildcard) a loopback or local interface address. Other host
// names are not resolved; a forwarded lookup reaching this node is
// answered locally, never forwarded again.
func isSelf(addr string, listen net.Addr) bool {
	host, port, err := net.SplitHostPort(addr)
	lhost, lport, lerr := net.SplitHostPort(listen.String())
	if err != nil || lerr != nil || port != lport {
		return false
	}
	bind, ip := net.ParseIP(lhost), net.ParseIP(host)
	wildcard := bind == nil || bind.IsUnspecified()
	switch {
	case strings.EqualFold(host, "localhost"):
		return wildcard || bind.IsLoopback()
	case ip == nil:
		return isOwnHostName(host)
	case !wildcard:
		return ip.Equal(bind)
	}
	return ip.IsLoopback() || ip.IsUnspecified() || isLocalIP(ip)
}

func isOwnHostName(host string) bool {
	name, _ := os.Hostname()
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	name = strings.ToLower(name)
	short, _, _ := strings.Cut(host, ".")
	return name != "" && (host == name || short == name)
}

// interfaceAddrs lists this host's addresses (tests replace it).
var interfaceAddrs = net.InterfaceAddrs

// checkInterfaceAddrs warns when this host's addresses cannot be listed
// (a sandbox refusing netlink sockets: systemd's RestrictAddressFamilies
// without AF_NETLINK): a warmupForwardPeers entry naming this node by one
// of its IPs is then not recognized and lookups are forwarded to itself.
func checkInterfaceAddrs(log hclog.Logger) {
	if _, err := interfaceAddrs(); err != nil {
		log.Warn("cannot list this host's addresses: an entry of warmupForwardPeers naming this node by its IP is not recognized as this node (allow AF_NETLINK)",
			"error", err)
	}
}

func isLocalIP(ip net.IP) bool {
	addrs, err := interfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}
