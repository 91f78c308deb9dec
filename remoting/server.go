package remoting

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/internal/lograte"
	"github.com/rmqgo/nameserver/internal/monotime"
)

// DefaultIdleTimeout is Java's serverChannelMaxIdleTimeSeconds (120 s).
const DefaultIdleTimeout = 120 * time.Second

// HandlerFunc handles one request. Returning (resp, nil) writes resp unless
// the request was oneway; (nil, err) or a panic answers SYSTEM_ERROR with the
// error text as remark, for that request only; (nil, nil) writes nothing.
// Handlers of one connection run one at a time, in arrival order, except
// those registered with RegisterAsync; handlers of different connections
// run concurrently. The returned command must not
// be modified afterwards (it may be shared between requests).
type HandlerFunc func(c *Conn, req *Command) (*Command, error)

// Observer receives optional metrics hooks; all may be called concurrently.
type Observer interface {
	// RequestDone reports a handled request; respCode is -1 when nothing
	// was answered (oneway, or a nil response).
	RequestDone(code, respCode int32, d time.Duration)
	// FrameRejected reports a connection closed for a bad frame.
	FrameRejected(reason string)
	ConnOpened()
	ConnClosed()
}

// Defaults of the memory bounds in ServerConfig.
const (
	// DefaultMaxPendingResponseBytes caps the response bytes queued on one
	// connection (our serverChannelMaxPendingResponseBytes).
	DefaultMaxPendingResponseBytes = 4 << 20
	// DefaultPartialFrameBudget caps the bytes reserved by partly received
	// large frames across all connections (our serverPartialFrameBudgetBytes).
	DefaultPartialFrameBudget = 256 << 20
	// DefaultMaxConnections bounds the open connections (our
	// serverMaxConnections).
	DefaultMaxConnections = 10000
	// DefaultMaxAsyncPerConn bounds the requests of RegisterAsync codes
	// running at once for one connection.
	DefaultMaxAsyncPerConn = 16
)

// ServerConfig configures a Server.
type ServerConfig struct {
	MaxFrameLength int           // 0 → DefaultMaxFrameLength
	IdleTimeout    time.Duration // no read and no write this long → close; 0 → 120 s
	Logger         hclog.Logger  // nil → no logging; rate-limited by lograte.Wrap
	Observer       Observer      // may be nil
	// MaxPendingResponseBytes: while a connection has this many response
	// bytes queued and unwritten, its requests are not read (back-pressure);
	// if no byte is written for IdleTimeout meanwhile, it is closed.
	// 0 → DefaultMaxPendingResponseBytes.
	MaxPendingResponseBytes int64
	// PartialFrameBudget: a frame not yet buffered when its length arrives
	// reserves its bytes from this server-wide budget chunk by chunk as
	// they arrive (plus four times a header over 64 KiB, for decoding), and
	// holds them until its request is handled; it waits (at most
	// IdleTimeout, then the connection is closed) while the budget is
	// spent. 0 → DefaultPartialFrameBudget.
	PartialFrameBudget int64
	// MaxConnections: a connection accepted while this many are open is
	// closed at once. 0 → DefaultMaxConnections.
	MaxConnections int
	// MaxHeaderLength: a frame with a longer header closes the connection
	// (bad_header). 0 → DefaultMaxHeaderLength.
	MaxHeaderLength int
	// MaxAsyncPerConn bounds the RegisterAsync requests of one connection
	// running at once; over it the connection is not read. 0 →
	// DefaultMaxAsyncPerConn.
	MaxAsyncPerConn int
	// OnPanic, if set, is called after a handler or ConnHook panic was
	// recovered and logged (e.g. to count it); code is the request code,
	// -1 for a ConnHook; v is the recovered value.
	OnPanic func(code int32, v any)
	// ConnHooks run in order on a new connection's goroutine before its
	// first frame is read; see ConnHook. Connections in their hooks count
	// against MaxConnections.
	ConnHooks []ConnHook
	// HandshakeTimeout bounds all ConnHooks of one connection together;
	// 0 → DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// Authorize, if set, runs before the handler of every request (every
	// code, RegisterAsync codes on their goroutine, the default handler);
	// responses are not checked. A nil result lets the handler run; a
	// non-nil one is answered instead and the handler does not run (a
	// denied oneway request is dropped). It may be called concurrently.
	Authorize func(c *Conn, req *Command) *Command
	// GoAwayPeriod > 0 makes Shutdown graceful as Java's
	// enableShutdownGracefully: after the listeners close, connections are
	// served for up to this long (or until they all closed), requests of
	// peers after 5.3.1 answered GO_AWAY (see GoAwayAfterVersion), before
	// the drain. 0: drain at once. SetGoAwayPeriod changes it later.
	GoAwayPeriod time.Duration
}

// Server accepts remoting connections and dispatches requests by code.
type Server struct {
	cfg      ServerConfig
	log      hclog.Logger
	handlers atomic.Pointer[map[int32]handler] // copy on write
	fallback atomic.Pointer[HandlerFunc]
	nextID   atomic.Uint64
	budget   *frameBudget
	addr     atomic.Pointer[net.Addr]

	mu        sync.Mutex
	regMu     sync.Mutex // serializes Register
	onClose   []func(*Conn)
	listeners map[net.Listener]struct{}
	conns     map[*Conn]struct{}
	shaking   map[net.Conn]struct{} // connections in their ConnHooks
	closing   bool
	goingAway atomic.Bool // graceful Shutdown: answer GO_AWAY
	// goAwayPeriod is GoAwayPeriod, or what SetGoAwayPeriod set (nanoseconds).
	goAwayPeriod atomic.Int64
	wg           sync.WaitGroup
	now          func() time.Time // the clock of rate-limited logs
	clock        monotime.Clock   // the clock of idle decisions (tests inject one)
	overLimit    lograte.Limiter  // warnings of connections over MaxConnections
	badFrames    lograte.Limiter  // warnings of connections closed on a bad frame
}

// refusalLogEvery bounds the warnings about connections refused before
// their first frame: anyone can cause one per connection.
const refusalLogEvery = time.Second

// NewServer returns a server; register handlers, then call Serve.
func NewServer(cfg ServerConfig) *Server {
	if cfg.MaxFrameLength <= 0 {
		cfg.MaxFrameLength = DefaultMaxFrameLength
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	cfg.Logger = lograte.Wrap(cfg.Logger) // strangers cause most of its lines
	if cfg.MaxPendingResponseBytes <= 0 {
		cfg.MaxPendingResponseBytes = DefaultMaxPendingResponseBytes
	}
	if cfg.PartialFrameBudget <= 0 {
		cfg.PartialFrameBudget = DefaultPartialFrameBudget
	}
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = DefaultMaxConnections
	}
	if cfg.MaxHeaderLength <= 0 {
		cfg.MaxHeaderLength = DefaultMaxHeaderLength
	}
	if cfg.MaxAsyncPerConn <= 0 {
		cfg.MaxAsyncPerConn = DefaultMaxAsyncPerConn
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = DefaultHandshakeTimeout
	}
	s := &Server{
		cfg: cfg, log: cfg.Logger, budget: newFrameBudget(cfg.PartialFrameBudget),
		listeners: make(map[net.Listener]struct{}),
		conns:     make(map[*Conn]struct{}),
		shaking:   make(map[net.Conn]struct{}),
		now:       time.Now,
		clock:     monotime.System,
		overLimit: lograte.Limiter{Every: refusalLogEvery},
		badFrames: lograte.Limiter{Every: refusalLogEvery},
	}
	s.handlers.Store(&map[int32]handler{})
	s.goAwayPeriod.Store(int64(max(cfg.GoAwayPeriod, 0)))
	return s
}

// handler is a registered HandlerFunc and how it runs.
type handler struct {
	fn        HandlerFunc
	async     bool
	transient bool // RegisterTransient: keeps nothing of the request
}

// Register sets the handler of a request code, run on the connection's
// read loop (requests of the connection wait for it); it may be called
// while serving.
func (s *Server) Register(code int32, h HandlerFunc) { s.register(code, handler{fn: h}) }

// RegisterAsync sets the handler of a request code that may block (e.g. a
// Raft commit): each request runs on its own goroutine, at most
// MaxAsyncPerConn of one connection at a time (then the connection is not
// read until one ends), and its response is written when it is done, so it
// may overtake or follow later requests' responses (matched by opaque, as
// Java's per-processor executors do).
func (s *Server) RegisterAsync(code int32, h HandlerFunc) {
	s.register(code, handler{fn: h, async: true})
}

// RegisterTransient is Register for a hot handler that keeps nothing of its
// request once it returns: neither the *Command, nor its ExtFields map, nor
// its Body, and its response shares none of them (strings read from the
// map may be kept: they are immutable). The connection then decodes its
// next request into the same Command and cleared map, saving their
// allocations. ServerConfig.Authorize must not keep them either.
func (s *Server) RegisterTransient(code int32, h HandlerFunc) {
	s.register(code, handler{fn: h, transient: true})
}

func (s *Server) register(code int32, h handler) {
	s.regMu.Lock()
	defer s.regMu.Unlock()
	old := *s.handlers.Load()
	m := make(map[int32]handler, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[code] = h
	s.handlers.Store(&m)
}

// SetDefaultHandler replaces the built-in handler of unregistered codes
// (REQUEST_CODE_NOT_SUPPORTED).
func (s *Server) SetDefaultHandler(h HandlerFunc) { s.fallback.Store(&h) }

// OnConnClose registers fn, called once per connection after it closed
// (peer close, error, bad frame, idle, Close, shutdown).
func (s *Server) OnConnClose(fn func(c *Conn)) {
	s.mu.Lock()
	s.onClose = append(s.onClose, fn)
	s.mu.Unlock()
}

// Addr returns the address of the listener Serve was last called with, nil
// before.
func (s *Server) Addr() net.Addr {
	if a := s.addr.Load(); a != nil {
		return *a
	}
	return nil
}

// Serve accepts connections on ln until Shutdown or Close, then returns nil
// (ErrClosed if the server was already shut down). Other accept errors end
// it with that error.
func (s *Server) Serve(ln net.Listener) error {
	if !s.track(ln) {
		_ = ln.Close()
		return ErrClosed
	}
	addr := ln.Addr()
	s.addr.Store(&addr)
	s.log.Info("serving", "addr", addr.String())
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.isClosing() {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				s.untrack(ln)
				return fmt.Errorf("remoting: accept on %s: %w", addr, err)
			}
			// e.g. EMFILE: back off and keep serving, like net/http
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			s.log.Warn("accept failed, retrying", "error", err, "delay", delay)
			time.Sleep(delay)
			continue
		}
		delay = 0
		s.startConn(nc)
	}
}

func (s *Server) track(ln net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.listeners[ln] = struct{}{}
	return true
}

func (s *Server) untrack(ln net.Listener) {
	s.mu.Lock()
	delete(s.listeners, ln)
	s.mu.Unlock()
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}
