package remoting

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"time"

	"github.com/hashicorp/go-hclog"
)

// startConn admits an accepted connection against MaxConnections and
// serves it on a goroutine, after its ConnHooks if any.
func (s *Server) startConn(nc net.Conn) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		_ = nc.Close()
		return
	}
	if open := len(s.conns) + len(s.shaking); open >= s.cfg.MaxConnections {
		s.mu.Unlock()
		// Counted before the close, so a peer that sees EOF sees it counted.
		ok, n := s.overLimit.Allow(s.now())
		_ = nc.Close()
		if ok {
			s.log.Warn("closing connection over the connection limit", "remote", nc.RemoteAddr().String(),
				"open", open, "suppressed", n)
		}
		return
	}
	s.shaking[nc] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	go s.openConn(nc)
}

// openConn runs the ConnHooks of nc, then registers and serves the
// connection they return; a hook error closes it.
func (s *Server) openConn(raw net.Conn) {
	nc, err := s.runHooks(raw)
	s.mu.Lock()
	delete(s.shaking, raw)
	if err == nil && s.closing {
		err = ErrClosed
	}
	if err != nil {
		s.mu.Unlock()
		s.wg.Done()
		_ = nc.Close()
		s.log.Debug("connection refused before its first frame", "remote", raw.RemoteAddr().String(), "error", err)
		return
	}
	c := newConn(s.nextID.Add(1), nc, connConfig{
		maxFrame: s.cfg.MaxFrameLength, idle: s.cfg.IdleTimeout, log: s.log,
		maxPending: s.cfg.MaxPendingResponseBytes, budget: s.budget, maxAsync: s.cfg.MaxAsyncPerConn,
		maxHeader: s.cfg.MaxHeaderLength, clock: s.clock,
	})
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	if s.cfg.Observer != nil {
		s.cfg.Observer.ConnOpened()
	}
	s.serveConn(c)
}

// serveConn runs c, then reports its end to the hooks.
func (s *Server) serveConn(c *Conn) {
	defer s.wg.Done()
	c.log.Debug("connection opened")
	err := c.run(func(cmd *Command) (*Command, bool) { return s.route(c, cmd) })
	s.logConnEnd(c, err)
	s.mu.Lock()
	delete(s.conns, c)
	hooks := s.onClose
	s.mu.Unlock()
	for _, fn := range hooks {
		s.safeHook(c, fn)
	}
	if s.cfg.Observer != nil {
		s.cfg.Observer.ConnClosed()
	}
}

func (s *Server) safeHook(c *Conn, fn func(*Conn)) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("connection close hook panicked", "panic", r)
		}
	}()
	fn(c)
}

// logConnEnd logs why a connection ended (a bad frame at most once per
// refusalLogEvery: any stranger can send one) and reports rejected frames.
func (s *Server) logConnEnd(c *Conn, err error) {
	if reason := rejectReason(err); reason != "" {
		if ok, n := s.badFrames.Allow(s.now()); ok {
			c.log.Warn("closing connection on bad frame", "reason", reason, "error", err, "suppressed", n)
		}
		if s.cfg.Observer != nil {
			s.cfg.Observer.FrameRejected(reason)
		}
		return
	}
	switch {
	case errors.Is(err, ErrIdle):
		c.log.Info("closing idle connection", "error", err)
	case errors.Is(err, ErrOverloaded):
		c.log.Warn("closing connection waiting for the frame budget", "error", err)
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, errDraining), errors.Is(err, net.ErrClosed):
		c.log.Debug("connection closed", "reason", err)
	default:
		c.log.Info("connection closed", "error", err)
	}
}

// rejectReason names a bad-frame error for Observer.FrameRejected.
func rejectReason(err error) string {
	for _, r := range []struct {
		err    error
		reason string
	}{
		{ErrFrameTooLarge, "frame_too_large"},
		{ErrBadFrameLength, "bad_frame_length"},
		{ErrFrameTruncated, "frame_truncated"},
		{ErrBadSerializeType, "bad_serialize_type"},
		{ErrBadHeader, "bad_header"},
	} {
		if errors.Is(err, r.err) {
			return r.reason
		}
	}
	return ""
}

// route runs a request of a RegisterAsync code on its own goroutine and
// anything else on the read loop, returning the response to write and
// whether the request may be recycled (its handler was registered with
// RegisterTransient and ran on the read loop).
func (s *Server) route(c *Conn, cmd *Command) (*Command, bool) {
	if cmd.IsResponse() {
		return s.dispatch(c, cmd, nil), false
	}
	h, ok := (*s.handlers.Load())[cmd.Code]
	if h.async {
		c.runAsync(func() *Command { return s.dispatch(c, cmd, nil) })
		return nil, false
	}
	if !ok {
		return s.dispatch(c, cmd, nil), false
	}
	return s.dispatch(c, cmd, h.fn), h.transient
}

// dispatch handles one decoded frame of c and returns the response to
// write, if any.
// fn is the handler to run (nil: the one registered for req.Code).
func (s *Server) dispatch(c *Conn, req *Command, fn HandlerFunc) *Command {
	if req.IsResponse() {
		c.deliver(req)
		return nil
	}
	var start time.Time
	if s.cfg.Observer != nil {
		start = time.Now()
	}
	resp := s.goAwayResponse(c, req)
	if resp == nil {
		resp = s.call(c, req, fn)
	}
	if resp != nil && req.IsOneway() {
		resp = nil
	}
	if s.cfg.Observer != nil {
		respCode := int32(-1)
		if resp != nil {
			respCode = resp.Code
		}
		s.cfg.Observer.RequestDone(req.Code, respCode, time.Since(start))
	}
	if resp == nil {
		return nil
	}
	return fixResponse(req, resp)
}

// call runs ServerConfig.Authorize, then (unless it answered) fn or, when
// nil, the handler of req.Code, turning an error or panic into SYSTEM_ERROR.
func (s *Server) call(c *Conn, req *Command, fn HandlerFunc) (resp *Command) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("handler panicked", "code", req.Code, "panic", r, "stack", hclog.CapturedStacktrace(debug.Stack()))
			if s.cfg.OnPanic != nil {
				s.cfg.OnPanic(req.Code, r)
			}
			resp = NewResponse(req, SystemError, fmt.Sprintf("panic: %v", r))
		}
	}()
	if s.cfg.Authorize != nil {
		if denied := s.cfg.Authorize(c, req); denied != nil {
			return denied
		}
	}
	if fn == nil {
		fn = s.handler(req.Code)
	}
	resp, err := fn(c, req)
	if err != nil {
		c.log.Warn("handler failed", "code", req.Code, "error", err)
		return NewResponse(req, SystemError, err.Error())
	}
	return resp
}

// handler returns the handler of code, or the default handler.
func (s *Server) handler(code int32) HandlerFunc {
	if h, ok := (*s.handlers.Load())[code]; ok {
		return h.fn
	}
	if h := s.fallback.Load(); h != nil {
		return *h
	}
	return notSupported
}

// notSupported answers like Java for a code without processor.
func notSupported(c *Conn, req *Command) (*Command, error) {
	c.log.Debug("request code not supported", "code", req.Code)
	return NewResponse(req, RequestCodeNotSupported, fmt.Sprintf(" request type %d not supported", req.Code)), nil
}

// Shutdown stops accepting, lets every connection finish the request it is
// handling and flush what is queued, closes the connections and waits for
// their goroutines. With GoAwayPeriod set, the connections are first kept
// serving for that period (see goAway). If ctx ends first, the connections
// are closed at once, async handlers still running are not waited for
// (their responses are discarded) and ctx.Err() is returned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopAccepting()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	if period := time.Duration(s.goAwayPeriod.Load()); period > 0 && ctx.Err() == nil {
		s.goAway(ctx, done, period)
	}
	conns := s.openConns()
	for _, c := range conns {
		c.beginDrain()
	}
	if ctx.Err() == nil { // a ctx that ended in the GO_AWAY phase gets no drain
		select {
		case <-done:
			return nil
		case <-ctx.Done():
		}
	}
	for _, c := range conns {
		c.abandon()
	}
	<-done
	return ctx.Err()
}

// stopAccepting closes the listeners and the connections still in their
// ConnHooks; later connections are refused.
func (s *Server) stopAccepting() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	for ln := range s.listeners {
		_ = ln.Close()
	}
	clear(s.listeners)
	for nc := range s.shaking {
		_ = nc.Close() // its openConn sees the error and gives up
	}
}

// openConns returns the registered connections.
func (s *Server) openConns() []*Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	conns := make([]*Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	return conns
}

// Close closes the listeners and all connections at once and waits for
// their goroutines.
func (s *Server) Close() error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Shutdown(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
