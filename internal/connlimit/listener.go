package connlimit

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/internal/lograte"
)

// refusalLogEvery bounds the warnings about refused connections: anyone
// can cause one per connection.
const refusalLogEvery = time.Second

// Config configures a Listener.
type Config struct {
	// Max is the listener's own cap on open connections; <= 0 means no
	// cap of its own (the Budget still applies).
	Max int
	// Budget is shared with the other side listeners; nil means Side().
	Budget *Budget
	// FirstReadTimeout, when > 0, closes a connection that sends nothing
	// for this long after it was accepted (a handshake deadline for
	// protocols without one); the deadline is lifted by the first byte.
	FirstReadTimeout time.Duration
	// Logger receives the rate-limited refusal warnings; nil discards.
	Logger hclog.Logger
}

// Listener is a net.Listener whose Accept closes, at once, the
// connections over its cap or over the budget, and returns the others.
type Listener struct {
	net.Listener
	cfg     Config
	open    atomic.Int64
	refused atomic.Uint64
	logs    lograte.Limiter
}

// Wrap bounds ln; closing the Listener closes ln.
func Wrap(ln net.Listener, cfg Config) *Listener {
	if cfg.Budget == nil {
		cfg.Budget = Side()
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	return &Listener{Listener: ln, cfg: cfg, logs: lograte.Limiter{Every: refusalLogEvery}}
}

// Accept returns the next connection within the bounds; those over them
// are closed without blocking the loop. Errors of the inner listener are
// returned as they are (its caller backs off on EMFILE).
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if reason := l.admit(); reason != "" {
			l.refuse(c, reason)
			continue
		}
		if l.cfg.FirstReadTimeout > 0 {
			_ = c.SetReadDeadline(time.Now().Add(l.cfg.FirstReadTimeout))
		}
		return &conn{Conn: c, l: l, firstRead: l.cfg.FirstReadTimeout > 0}, nil
	}
}

// admit takes a place in the cap and the budget; it returns why not.
func (l *Listener) admit() string {
	if n := l.open.Add(1); l.cfg.Max > 0 && n > int64(l.cfg.Max) {
		l.open.Add(-1)
		return "connection cap"
	}
	if !l.cfg.Budget.TryAcquire() {
		l.open.Add(-1)
		return "side file-descriptor budget"
	}
	return ""
}

func (l *Listener) refuse(c net.Conn, reason string) {
	l.refused.Add(1) // before the peer can see the close
	_ = c.Close()
	if ok, n := l.logs.Allow(time.Now()); ok {
		l.cfg.Logger.Warn("closing connection over the "+reason, "addr", l.Addr().String(),
			"remote", c.RemoteAddr().String(), "open", l.open.Load(), "max", l.cfg.Max,
			"budget", l.cfg.Budget.Max(), "suppressed", n)
	}
}

func (l *Listener) release() {
	l.open.Add(-1)
	l.cfg.Budget.Release()
}

// Open is how many admitted connections are not closed yet.
func (l *Listener) Open() int { return int(l.open.Load()) }

// Refused is how many connections were closed over a bound.
func (l *Listener) Refused() uint64 { return l.refused.Load() }

// conn gives its place back once, at its first Close.
type conn struct {
	net.Conn
	l         *Listener
	once      sync.Once
	firstRead bool
	lifted    atomic.Bool
}

// Read lifts the first-read deadline once a byte arrived.
func (c *conn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if c.firstRead && n > 0 && c.lifted.CompareAndSwap(false, true) {
		_ = c.Conn.SetReadDeadline(time.Time{})
	}
	return n, err
}

// Close closes the connection and releases its place.
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.l.release)
	return err
}
