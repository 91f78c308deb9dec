package remoting

import (
	"context"
	"crypto/tls"
	"fmt"
	"maps"
	"net"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
)

// clientIDs numbers client connections (for logs).
var clientIDs atomic.Uint64

// ClientOptions configures Dial.
type ClientOptions struct {
	Logger         hclog.Logger // nil → no logging
	MaxFrameLength int          // 0 → DefaultMaxFrameLength
	// OnRequest handles requests the server pushes (e.g. a fake broker
	// receiving 905 or 1008). Its non-nil result is sent back unless the
	// request was oneway. Nil: non-oneway requests get
	// REQUEST_CODE_NOT_SUPPORTED. It runs on the read loop, so responses
	// wait while it runs.
	OnRequest func(req *Command) *Command
	// Sign, if set, is applied to a copy (with its own ExtFields map) of
	// every request Invoke and InvokeOneway send, e.g. to add ACL
	// signature fields; the caller's command is not modified.
	Sign func(req *Command)
	// TLS, when set, makes Dial run a TLS handshake (bounded by the dial
	// context) before the first frame; nil is plaintext.
	TLS *tls.Config
}

// Client is one connection to a remoting server. It is safe for concurrent
// use; requests are pipelined and matched to responses by opaque.
type Client struct {
	conn *Conn
	opts ClientOptions
}

// Dial connects to addr ("host:port").
func Dial(ctx context.Context, addr string, opts ClientOptions) (*Client, error) {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("remoting: dial %s: %w", addr, err)
	}
	if opts.TLS != nil {
		if nc, err = handshake(ctx, nc, opts.TLS); err != nil {
			return nil, fmt.Errorf("remoting: tls handshake with %s: %w", addr, err)
		}
	}
	c := &Client{opts: opts}
	c.conn = newConn(clientIDs.Add(1), nc, connConfig{
		maxFrame: opts.MaxFrameLength, log: opts.Logger,
	})
	go func() {
		err := c.conn.run(c.dispatch)
		c.conn.log.Debug("client connection closed", "reason", err)
	}()
	return c, nil
}

// dispatch routes a frame read by the client: responses to their Invoke,
// requests to OnRequest.
func (c *Client) dispatch(cmd *Command) (*Command, bool) {
	if cmd.IsResponse() {
		c.conn.deliver(cmd)
		return nil, false
	}
	resp := c.onRequest(cmd)
	if resp == nil || cmd.IsOneway() {
		return nil, false
	}
	return fixResponse(cmd, resp), false
}

// onRequest runs OnRequest, answering SYSTEM_ERROR if it panics.
func (c *Client) onRequest(req *Command) (resp *Command) {
	if c.opts.OnRequest == nil {
		return NewResponse(req, RequestCodeNotSupported, fmt.Sprintf(" request type %d not supported", req.Code))
	}
	defer func() {
		if r := recover(); r != nil {
			c.conn.log.Error("request handler panicked", "code", req.Code, "panic", r)
			resp = NewResponse(req, SystemError, fmt.Sprintf("panic: %v", r))
		}
	}()
	return c.opts.OnRequest(req)
}

// Invoke sends req and waits for its response (see Conn.Invoke): req is
// copied and gets a fresh opaque; ctx bounds the wait.
func (c *Client) Invoke(ctx context.Context, req *Command) (*Command, error) {
	return c.conn.Invoke(ctx, c.signed(req))
}

// InvokeOneway sends req with the oneway flag; no response is awaited.
func (c *Client) InvokeOneway(req *Command) error {
	return c.conn.SendOneway(c.signed(req))
}

// signed returns req, or a signed copy of it when ClientOptions.Sign is set.
func (c *Client) signed(req *Command) *Command {
	if c.opts.Sign == nil {
		return req
	}
	cp := *req
	cp.ExtFields = maps.Clone(req.ExtFields)
	if cp.ExtFields == nil {
		cp.ExtFields = make(map[string]string, 2)
	}
	c.opts.Sign(&cp)
	return &cp
}

// closeFlushTimeout bounds how long Close waits to flush queued frames.
const closeFlushTimeout = 3 * time.Second

// Close stops reading, flushes what is queued (so an InvokeOneway just
// before Close is sent; at most closeFlushTimeout), closes the connection
// and waits for its goroutines. Pending Invokes fail with ErrClosed.
func (c *Client) Close() error {
	c.conn.beginDrain()
	_ = c.conn.nc.SetWriteDeadline(time.Now().Add(closeFlushTimeout))
	<-c.conn.dead
	return nil
}

// Done is closed when the connection is gone.
func (c *Client) Done() <-chan struct{} { return c.conn.dead }

// LocalAddr returns the client's local address.
func (c *Client) LocalAddr() string { return c.conn.nc.LocalAddr().String() }

// handshake runs a client TLS handshake on nc; nc is closed on failure.
func handshake(ctx context.Context, nc net.Conn, cfg *tls.Config) (net.Conn, error) {
	if cfg.ServerName == "" && !cfg.InsecureSkipVerify {
		cfg = cfg.Clone()
		cfg.ServerName, _, _ = net.SplitHostPort(nc.RemoteAddr().String())
	}
	tc := tls.Client(nc, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = nc.Close()
		return nil, err
	}
	return tc, nil
}
