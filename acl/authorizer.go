package acl

import (
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/internal/aclfile"
	"github.com/rmqgo/nameserver/internal/lograte"
	"github.com/rmqgo/nameserver/internal/monotime"
	"github.com/rmqgo/nameserver/remoting"
)

// DefaultPollInterval is how often the accounts file is checked for
// changes; a changed file is read at the check after (once it held still),
// so a revoked key stops working within two of it plus the time to parse.
const DefaultPollInterval = 250 * time.Millisecond

// maxShownKey bounds how much of a presented access key a remark or log
// line repeats.
const maxShownKey = 64

// Options configures an Authorizer.
type Options struct {
	// Path is the accounts file (aclConfigPath).
	Path string
	// AnonymousRead lets requests without AccessKey run read codes
	// (aclAnonymousRead).
	AnonymousRead bool
	// Logger receives reload and denial logs, rate-limited
	// (lograte.Wrap); nil discards.
	Logger hclog.Logger
	// OnDeny, if set, is called for every denied request with the
	// permission it needed (e.g. to count it).
	OnDeny func(needed Permission)
	// PollInterval: 0 → DefaultPollInterval.
	PollInterval time.Duration
	// clock replaces monotime.System in tests; its monotonic reading
	// paces the denial log.
	clock monotime.Clock
}

// Authorizer checks requests against the accounts file.
type Authorizer struct {
	opts     Options
	log      hclog.Logger
	accounts atomic.Pointer[Accounts]
	denials  *denyLog
	reloader *reloader
}

// New loads the accounts file (an error names it) and starts watching it;
// Close stops watching.
func New(opts Options) (*Authorizer, error) {
	opts.Logger = lograte.Wrap(opts.Logger) // a denial is a stranger's line
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.clock == nil {
		opts.clock = monotime.System
	}
	a := &Authorizer{opts: opts, log: opts.Logger, denials: newDenyLog()}
	r, accs, err := newReloader(opts.Path, a.log)
	if err != nil {
		return nil, err
	}
	a.accounts.Store(accs)
	a.reloader = r
	go r.run(opts.PollInterval, func(n *Accounts) { a.accounts.Store(n) })
	return a, nil
}

// Account returns a copy of the account of accessKey in the accounts in
// force now (the file as last reloaded): the caller's to keep or change,
// the accounts in force are never modified.
func (a *Authorizer) Account(accessKey string) (Account, bool) {
	acc, ok := a.accounts.Load().Lookup(accessKey)
	if !ok {
		return Account{}, false
	}
	return *acc, true
}

// Close stops watching the file.
func (a *Authorizer) Close() { a.reloader.stop() }

// Authorize is a remoting.ServerConfig.Authorize: nil lets req run; a
// denial answers 16 NO_PERMISSION with the reason, and is logged (once per
// access key and minute) and counted.
func (a *Authorizer) Authorize(c *remoting.Conn, req *remoting.Command) *remoting.Command {
	remote := ""
	if c != nil {
		remote = c.RemoteAddr()
	}
	err := a.Check(remote, req)
	if err == nil {
		return nil
	}
	ak, _ := req.ExtString(FieldAccessKey)
	ak = shorten(ak)
	if a.denials.shouldLog(ak, a.opts.clock.Mono()) {
		a.log.Warn("request denied", "code", req.Code, "access_key", ak, "remote", remote,
			"oneway", req.IsOneway(), "reason", err)
	}
	if a.opts.OnDeny != nil {
		a.opts.OnDeny(Required(req))
	}
	return remoting.NewResponse(req, remoting.NoPermission, err.Error())
}

// Check decides whether a request from remote ("ip:port") may run; the
// error wraps ErrDenied and names the permission needed and the access key.
func (a *Authorizer) Check(remote string, req *remoting.Command) error {
	need := Required(req)
	accs := a.accounts.Load()
	addr := parseRemote(remote)
	ak, signed := req.ExtString(FieldAccessKey)
	deny := func(format string, args ...any) error {
		return fmt.Errorf("%w: code %d needs %s permission, AccessKey %q: %s",
			ErrDenied, req.Code, need, shorten(ak), fmt.Sprintf(format, args...))
	}
	if len(accs.global) > 0 && !aclfile.MatchAny(accs.global, addr) {
		return deny("remote address %s is not in globalWhiteRemoteAddresses", addr)
	}
	if !signed {
		if need == PermRead && a.opts.AnonymousRead {
			return nil
		}
		return deny("the request is not signed")
	}
	acc, ok := accs.Lookup(ak)
	if !ok {
		return deny("unknown access key")
	}
	if acc.Allowed != nil && !acc.Allowed.Match(addr) {
		return deny("remote address %s is not in the account's whiteRemoteAddress", addr)
	}
	if !validSignature(req, acc.secretKey) {
		return deny("signature mismatch")
	}
	if acc.Role < need {
		return deny("the account's role is %s", acc.Role)
	}
	return nil
}

// parseRemote returns the IP of "ip:port" (or of a bare IP); the zero
// Addr, which no pattern but "*" matches, if neither parses.
func parseRemote(remote string) netip.Addr {
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		return ap.Addr().Unmap().WithZone("")
	}
	a, _ := netip.ParseAddr(remote)
	return a.Unmap().WithZone("")
}

func shorten(s string) string {
	if len(s) > maxShownKey {
		return s[:maxShownKey] + "..."
	}
	return s
}

// maxDenyKeys bounds the access keys remembered per minute; denials of
// further keys in that minute share one entry (access keys are chosen by
// the sender, so the set must not grow without bound).
const maxDenyKeys = 1024

// overflowKey stands for every access key beyond maxDenyKeys.
const overflowKey = "\x00overflow"

// denyLog decides which denials are logged: the first of each access key
// in each minute, a minute of the monotonic clock (a wall-clock step
// neither begins a new one nor prolongs one).
type denyLog struct {
	mu   sync.Mutex
	ends monotime.Mono // end of the current minute; 0 before the first denial
	seen map[string]struct{}
}

func newDenyLog() *denyLog { return &denyLog{seen: make(map[string]struct{})} }

// shouldLog reports whether a denial of accessKey at now is the first of
// its minute.
func (d *denyLog) shouldLog(accessKey string, now monotime.Mono) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ends == 0 || !now.Before(d.ends) {
		d.ends = now.Add(time.Minute)
		clear(d.seen)
	}
	if _, ok := d.seen[accessKey]; !ok && len(d.seen) >= maxDenyKeys {
		accessKey = overflowKey
	}
	if _, ok := d.seen[accessKey]; ok {
		return false
	}
	d.seen[accessKey] = struct{}{}
	return true
}
