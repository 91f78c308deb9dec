package admin

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rmqgo/nameserver/remoting"
)

// Defaults of Options.
const (
	// DefaultTimeout bounds one request (Java's admin uses 3-5 s).
	DefaultTimeout = 5 * time.Second
	// DefaultDialTimeout bounds one connection attempt.
	DefaultDialTimeout = 3 * time.Second
)

// ErrUnreachable is wrapped by every error caused by an address that
// cannot be dialled, or that closed or timed out before answering.
var ErrUnreachable = errors.New("unreachable")

// ResponseError is a reply whose code is not SUCCESS.
type ResponseError struct {
	Addr   string
	Code   int32
	Remark string
}

// Error names the address, the code and the remark ("(no remark)" when empty).
func (e *ResponseError) Error() string {
	remark := strings.TrimSpace(e.Remark)
	if remark == "" {
		remark = "(no remark)"
	}
	return fmt.Sprintf("%s answered code %d: %s", e.Addr, e.Code, remark)
}

// ResponseCode returns the code of a *ResponseError in err's chain and
// whether there is one.
func ResponseCode(err error) (int32, bool) {
	var re *ResponseError
	if errors.As(err, &re) {
		return re.Code, true
	}
	return 0, false
}

// Options configures a Client. Zero values take the defaults.
type Options struct {
	Timeout     time.Duration // per request; default DefaultTimeout
	DialTimeout time.Duration // per connection attempt; default DefaultDialTimeout
	// Sign, if set, signs every request sent (acl.Sign with mqadmin's
	// --ak/--sk).
	Sign func(*remoting.Command)
	// TLS, when set, makes every connection (NameServers, controllers and
	// the brokers diagnose probes) TLS; nil is plaintext.
	TLS *tls.Config
}

// Client sends admin requests. It keeps one connection per address and is
// safe for concurrent use. Close releases the connections.
type Client struct {
	opts  Options
	mu    sync.Mutex
	conns map[string]*remoting.Client
}

// New returns a Client; it connects lazily.
func New(opts Options) *Client {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = DefaultDialTimeout
	}
	return &Client{opts: opts, conns: map[string]*remoting.Client{}}
}

// Close closes every connection.
func (c *Client) Close() error {
	c.mu.Lock()
	conns := c.conns
	c.conns = map[string]*remoting.Client{}
	c.mu.Unlock()
	for _, rc := range conns {
		_ = rc.Close()
	}
	return nil
}

// conn returns the open connection to addr, dialling when there is none.
func (c *Client) conn(ctx context.Context, addr string) (*remoting.Client, error) {
	c.mu.Lock()
	rc := c.conns[addr]
	c.mu.Unlock()
	if rc != nil && !isDone(rc) {
		return rc, nil
	}
	dctx, cancel := context.WithTimeout(ctx, c.opts.DialTimeout)
	defer cancel()
	rc, err := remoting.Dial(dctx, addr, remoting.ClientOptions{Sign: c.opts.Sign, TLS: c.opts.TLS})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnreachable, addr, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.conns[addr]; old != nil && !isDone(old) {
		_ = rc.Close()
		return old, nil
	}
	c.conns[addr] = rc
	return rc, nil
}

func isDone(rc *remoting.Client) bool {
	select {
	case <-rc.Done():
		return true
	default:
		return false
	}
}

// invoke sends req to addr and returns the reply whatever its code.
func (c *Client) invoke(ctx context.Context, addr string, req *remoting.Command) (*remoting.Command, error) {
	rc, err := c.conn(ctx, addr)
	if err != nil {
		return nil, err
	}
	ictx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	resp, err := rc.Invoke(ictx, req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnreachable, addr, err)
	}
	return resp, nil
}

// call sends a request and turns a non-SUCCESS reply into a *ResponseError.
func (c *Client) call(ctx context.Context, addr string, code int32, ext map[string]string, body []byte) (*remoting.Command, error) {
	resp, err := c.invoke(ctx, addr, remoting.NewRequest(code, ext, body))
	if err != nil {
		return nil, err
	}
	if resp.Code != remoting.Success {
		return resp, &ResponseError{Addr: addr, Code: resp.Code, Remark: resp.Remark}
	}
	return resp, nil
}

// SplitAddrs splits a Java-style address list ("a:1;b:2") into trimmed,
// non-empty addresses.
func SplitAddrs(list string) []string {
	var out []string
	for _, a := range strings.Split(list, ";") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// firstAnswer runs fn on each address in order and returns the first
// result that is not an ErrUnreachable failure (a Java client likewise
// moves to the next NameServer only when one cannot be reached).
func firstAnswer[T any](addrs []string, fn func(addr string) (T, error)) (T, error) {
	var zero T
	if len(addrs) == 0 {
		return zero, errors.New("no address given")
	}
	var errs []error
	for _, a := range addrs {
		v, err := fn(a)
		if err == nil || !errors.Is(err, ErrUnreachable) {
			return v, err
		}
		errs = append(errs, err)
	}
	return zero, errors.Join(errs...)
}
