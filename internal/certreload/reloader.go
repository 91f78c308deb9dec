package certreload

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/internal/monotime"
	"github.com/rmqgo/nameserver/internal/watchedfile"
)

// DefaultCheckInterval is how often, at most, a handshake looks at the
// files' stamps (watchedfile.Stamp: inode, size, modification time, mode,
// change time).
const DefaultCheckInterval = 2 * time.Second

// Reloader serves the current material of three PEM files and replaces
// it when they change. Safe for concurrent use.
type Reloader struct {
	paths    [3]string // by Role
	log      hclog.Logger
	cur      atomic.Pointer[loaded]
	interval atomic.Int64         // ns
	next     atomic.Int64         // monotime.Mono of the next allowed check (0: now)
	mu       sync.Mutex           // one check at a time
	failed   [3]watchedfile.Stamp // the version last refused, not tried again
	// failedOnTime: that refusal was the wall clock's alone (ErrNotValidNow),
	// so the version is tried again at each check: a clock that was behind
	// or stepped must not keep a good rotation out once it is right.
	failedOnTime bool
	reloads      atomic.Uint64
	refused      atomic.Uint64
	clock        monotime.Clock // its monotonic reading paces the checks (tests inject one)
}

type loaded struct {
	m     *Material
	stamp [3]watchedfile.Stamp
}

// New loads the three files (see Load) and returns a Reloader serving
// them. A nil log means hclog.NewNullLogger().
func New(certPath, keyPath, caPath string, log hclog.Logger) (*Reloader, error) {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	r := &Reloader{paths: [3]string{certPath, keyPath, caPath}, log: log, clock: monotime.System}
	r.interval.Store(int64(DefaultCheckInterval))
	l, err := r.load()
	if err != nil {
		return nil, err
	}
	r.cur.Store(l)
	r.log.Info("tls material loaded", "cert", certPath, "serial", serialOf(l.m), "trusted", l.m.Trusted)
	return r, nil
}

// SetCheckInterval changes how often, at most, the files are looked at
// (zero: on every handshake).
func (r *Reloader) SetCheckInterval(d time.Duration) {
	r.interval.Store(int64(d))
	r.next.Store(0)
}

// Certificate returns the node's current certificate (Leaf set).
func (r *Reloader) Certificate() *tls.Certificate { return r.cur.Load().m.Cert }

// Pool returns the current trusted CAs.
func (r *Reloader) Pool() *x509.CertPool { return r.cur.Load().m.Pool }

// Reloads counts the successful reloads since New.
func (r *Reloader) Reloads() uint64 { return r.reloads.Load() }

// Refused counts the peers whose certificate did not verify.
func (r *Reloader) Refused() uint64 { return r.refused.Load() }

// load stats and reads the files; stats come first, so a file replaced
// while it is read is read again at the next check.
func (r *Reloader) load() (*loaded, error) {
	l := loaded{stamp: r.stamps()}
	m, err := Load(r.paths[RoleCert], r.paths[RoleKey], r.paths[RoleTrust])
	if err != nil {
		return nil, err
	}
	l.m = m
	return &l, nil
}

// MaybeReload reloads the files if the check interval has passed and one
// of them changed. Handshakes call it; a concurrent call returns at once.
func (r *Reloader) MaybeReload() {
	now := int64(r.clock.Mono()) // a wall step neither hastens nor holds back a check
	if now < r.next.Load() || !r.mu.TryLock() {
		return
	}
	defer r.mu.Unlock()
	r.next.Store(now + r.interval.Load())
	cur := r.cur.Load()
	stamp := r.stamps()
	retry := sameStamps(stamp, r.failed)
	if sameStamps(stamp, cur.stamp) || retry && !r.failedOnTime {
		return
	}
	l, err := r.load()
	if err != nil {
		if !retry {
			r.log.Error("tls files changed but cannot be loaded: keeping the previous certificate",
				"serial", serialOf(cur.m), "error", err)
		}
		r.failed, r.failedOnTime = stamp, errors.Is(err, ErrNotValidNow)
		return
	}
	r.cur.Store(l)
	r.reloads.Add(1)
	r.log.Info("tls material reloaded", "old_serial", serialOf(cur.m), "serial", serialOf(l.m),
		"not_after", l.m.Cert.Leaf.NotAfter, "trusted", l.m.Trusted)
}

func (r *Reloader) stamps() [3]watchedfile.Stamp {
	var s [3]watchedfile.Stamp
	for i, p := range r.paths {
		s[i] = watchedfile.StampOf(p)
	}
	return s
}

// sameStamps reports whether every file is the same version in a and b.
func sameStamps(a, b [3]watchedfile.Stamp) bool {
	for i := range a {
		if !a[i].Same(b[i]) {
			return false
		}
	}
	return true
}

func serialOf(m *Material) string { return fmt.Sprintf("%x", m.Cert.Leaf.SerialNumber) }
