package proxyproto

import (
	"bufio"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/internal/lograte"
	"github.com/rmqgo/nameserver/remoting"
)

// readerSize is the buffer of the header read; what it holds past the
// header is handed to the connection's next reader.
const readerSize = 512

// Hook returns a connection hook (remoting.ConnHook) that reads a PROXY
// header. From a source inside trusted, a header present (version 1 or 2)
// makes the revealed client address the connection's RemoteAddr (a LOCAL
// or UNKNOWN header keeps the socket's), and a connection without one is
// served as it is. From any other source a header refuses the connection
// (ErrUntrusted, logged as a warning) and a plain connection is served as
// it is. A bad or truncated header refuses the connection; the server's
// handshake timeout bounds the wait for the first bytes. Refusals are
// logged at most once a second, with the count of those left out.
func Hook(trusted []netip.Prefix, logger hclog.Logger) func(net.Conn) (net.Conn, error) {
	return newHook(trusted, logger).run
}

func newHook(trusted []netip.Prefix, logger hclog.Logger) *hook {
	return &hook{trusted: trusted, log: lograte.Wrap(logger), now: time.Now, warned: lograte.Limiter{Every: refusalLogEvery}}
}

// refusalLogEvery bounds the warnings about refused headers: any client
// can send one per connection.
const refusalLogEvery = time.Second

type hook struct {
	trusted []netip.Prefix
	log     hclog.Logger
	now     func() time.Time
	warned  lograte.Limiter // refusal warnings
}

// warn logs a refused header, at most once per refusalLogEvery.
func (h *hook) warn(msg string, args ...any) {
	if ok, n := h.warned.Allow(h.now()); ok {
		h.log.Warn(msg, append(args, "suppressed", n)...)
	}
}

func (h *hook) run(nc net.Conn) (net.Conn, error) {
	r := bufio.NewReaderSize(nc, readerSize)
	v, err := Detect(r)
	if err != nil {
		return nil, err
	}
	if v == 0 {
		return wrap(nc, r, nil), nil
	}
	if !h.isTrusted(nc.RemoteAddr()) {
		h.warn("refusing a proxy protocol header from an untrusted source", "remote", nc.RemoteAddr().String(), "version", v)
		return nil, fmt.Errorf("%w: %s", ErrUntrusted, nc.RemoteAddr())
	}
	hdr, err := ReadHeader(r)
	if err != nil {
		h.warn("refusing a bad proxy protocol header", "remote", nc.RemoteAddr().String(), "error", err)
		return nil, err
	}
	if hdr.Local {
		return wrap(nc, r, nil), nil
	}
	h.log.Debug("proxy protocol header", "proxy", nc.RemoteAddr().String(), "client", hdr.Source.String(), "version", v)
	return wrap(nc, r, net.TCPAddrFromAddrPort(hdr.Source)), nil
}

// isTrusted reports whether a is an IP address inside a trusted prefix.
func (h *hook) isTrusted(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return false
	}
	ip, ok := netip.AddrFromSlice(ta.IP)
	if !ok {
		return false
	}
	ip = ip.Unmap()
	for _, p := range h.trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// wrap returns nc reading first what r buffered past the header, and
// reporting remote (when not nil) as its RemoteAddr.
func wrap(nc net.Conn, r *bufio.Reader, remote net.Addr) net.Conn {
	rest, _ := r.Peek(r.Buffered())
	if len(rest) == 0 && remote == nil {
		return nc
	}
	return remoting.Replay(nc, append([]byte(nil), rest...), remote)
}
