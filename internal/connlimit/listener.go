package connlimit

import (
	"container/list"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/internal/lograte"
)

// refusalLogEvery bounds the warnings about refused and evicted
// connections: anyone can cause one per connection.
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
	// ProveOnWrite proves a connection at its first write (an answer:
	// its peer spoke the protocol); otherwise only Prove does.
	ProveOnWrite bool
	// Logger receives the rate-limited refusal warnings; nil discards.
	Logger hclog.Logger
}

// Listener is a net.Listener within a cap and a Budget. At either bound a
// new connection takes the place of the oldest unproven one (closed at
// once): whoever holds the places without proving itself cannot lock
// out a probe or a peer. Only when every connection in the way is proven
// is the new one closed instead. The accept loop never blocks.
type Listener struct {
	net.Listener
	cfg      Config
	open     int       // guarded by cfg.Budget.mu
	unproven list.List // of *conn, oldest first; guarded by cfg.Budget.mu
	refused  atomic.Uint64
	evicted  atomic.Uint64
	logs     lograte.Limiter
	leave    sync.Once
}

// Wrap bounds ln; closing the Listener closes ln.
func Wrap(ln net.Listener, cfg Config) *Listener {
	if cfg.Budget == nil {
		cfg.Budget = Side()
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	l := &Listener{Listener: ln, cfg: cfg, logs: lograte.Limiter{Every: refusalLogEvery}}
	cfg.Budget.join(l)
	return l
}

// Accept returns the next connection within the bounds. Errors of the
// inner listener are returned as they are (its caller backs off on
// EMFILE).
func (l *Listener) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c, victim, reason := l.admit(nc)
		if victim != nil {
			l.evicted.Add(1)
			_ = victim.Conn.Close()
			l.warn("closing the oldest unproven connection to admit a new one: "+reason, victim.Conn)
		}
		if c == nil {
			l.refused.Add(1) // before the peer can see the close
			_ = nc.Close()
			l.warn("closing connection over the "+reason, nc)
			continue
		}
		if l.cfg.FirstReadTimeout > 0 {
			_ = nc.SetReadDeadline(time.Now().Add(l.cfg.FirstReadTimeout))
		}
		return c, nil
	}
}

// Close stops listening and leaves the budget.
func (l *Listener) Close() error {
	l.leave.Do(func() { l.cfg.Budget.leave(l) })
	return l.Listener.Close()
}

// admit takes a place for nc in the cap and the budget, in the place of
// the oldest unproven connection when one is full; c is nil (and reason
// says why) when every connection in the way is proven.
func (l *Listener) admit(nc net.Conn) (c, victim *conn, reason string) {
	b := l.cfg.Budget
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case l.cfg.Max > 0 && l.open >= l.cfg.Max:
		reason, victim = "connection cap", l.oldestUnproven()
	case b.used >= b.max:
		reason, victim = "side file-descriptor budget", b.oldestUnproven()
	}
	if reason != "" && victim == nil {
		return nil, nil, reason
	}
	if victim != nil {
		victim.releaseLocked()
	}
	b.seq++
	c = &conn{Conn: nc, l: l, seq: b.seq, firstRead: l.cfg.FirstReadTimeout > 0}
	c.elem = l.unproven.PushBack(c)
	l.open++
	b.used++
	return c, victim, reason
}

// oldestUnproven is the front of l's unproven list; called with the
// budget's lock held.
func (l *Listener) oldestUnproven() *conn {
	if e := l.unproven.Front(); e != nil {
		return e.Value.(*conn)
	}
	return nil
}

func (l *Listener) warn(msg string, nc net.Conn) {
	if ok, n := l.logs.Allow(time.Now()); ok {
		l.cfg.Logger.Warn(msg, "addr", l.Addr().String(), "remote", nc.RemoteAddr().String(),
			"open", l.Open(), "max", l.cfg.Max, "budget", l.cfg.Budget.Max(), "suppressed", n)
	}
}

// Open is how many admitted connections are not closed yet.
func (l *Listener) Open() int {
	l.cfg.Budget.mu.Lock()
	defer l.cfg.Budget.mu.Unlock()
	return l.open
}

// Refused is how many new connections were closed over a bound.
func (l *Listener) Refused() uint64 { return l.refused.Load() }

// Evicted is how many unproven connections were closed to admit new ones.
func (l *Listener) Evicted() uint64 { return l.evicted.Load() }
