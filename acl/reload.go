package acl

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/internal/aclfile"
	"github.com/rmqgo/nameserver/internal/watchedfile"
)

// maxFileSize bounds the accounts file read into memory.
const maxFileSize = aclfile.MaxFileSize

// reloader watches the accounts file: a change of its stamp
// (watchedfile.Stamp: inode, size, modification time, mode, change time)
// that holds still for one poll (a file rewritten in place is read
// once written, not half-way) makes it read it; a change of its content
// makes it parse it. A file that cannot be read or parsed keeps the
// previous accounts (logged once per version).
type reloader struct {
	path    string
	log     hclog.Logger
	cur     watchedfile.Stamp // of the version read last (zero: none could be opened)
	pending watchedfile.Stamp // a changed version seen by the last poll, not read yet
	sum     [sha256.Size]byte
	done    chan struct{} // closed by stop
	exited  chan struct{} // closed when run returns
	once    sync.Once
	polls   atomic.Int64 // polls done (tests)
	reads   atomic.Int64 // reads of the file (tests)
}

func newReloader(path string, log hclog.Logger) (*reloader, *Accounts, error) {
	r := &reloader{path: path, log: log, done: make(chan struct{}), exited: make(chan struct{})}
	b, fi, err := r.read()
	if err != nil {
		return nil, nil, err
	}
	accs, err := Parse(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	r.cur, r.sum = watchedfile.StampOfInfo(fi), sha256.Sum256(b)
	log.Info("acl accounts loaded", "path", path, "accounts", len(accs.byKey), "global_patterns", len(accs.global))
	return r, accs, nil
}

// read returns the file's content and its FileInfo (nil when it cannot be
// opened), refusing anything but a regular file of at most maxFileSize.
func (r *reloader) read() ([]byte, os.FileInfo, error) {
	r.reads.Add(1)
	b, fi, err := watchedfile.Read(r.path, maxFileSize)
	if err != nil {
		return nil, fi, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	return b, fi, nil
}

func (r *reloader) run(every time.Duration, publish func(*Accounts)) {
	defer close(r.exited)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-t.C:
			if accs := r.poll(); accs != nil {
				publish(accs)
			}
		}
	}
}

// poll returns the new accounts when the file changed, held still since
// the previous poll, and parses.
func (r *reloader) poll() *Accounts {
	defer r.polls.Add(1)
	if st, err := watchedfile.StatStamp(r.path); err == nil {
		if st.Same(r.cur) {
			return nil
		}
		if !st.Same(r.pending) {
			r.pending = st // changed: read it once it held still
			return nil
		}
	}
	b, fi, err := r.read()
	if err != nil {
		r.refuse(fi, err)
		return nil
	}
	r.cur = watchedfile.StampOfInfo(fi)
	sum := sha256.Sum256(b)
	if bytes.Equal(sum[:], r.sum[:]) {
		return nil
	}
	r.sum = sum
	accs, err := Parse(b)
	if err != nil {
		r.log.Error("acl file invalid, keeping the previous accounts", "path", r.path, "error", err)
		return nil
	}
	r.log.Info("acl accounts reloaded", "path", r.path, "accounts", len(accs.byKey), "global_patterns", len(accs.global))
	return accs
}

// refuse logs a file that could not be read and remembers its version
// (fi; nil when it could not be opened), so that the same version is
// neither read nor logged again until it changes.
func (r *reloader) refuse(fi os.FileInfo, err error) {
	if fi != nil || !r.cur.Same(watchedfile.Stamp{}) {
		r.log.Error("acl file unreadable, keeping the previous accounts", "path", r.path, "error", err)
	}
	r.cur = watchedfile.StampOfInfo(fi)
}

// stop ends run and waits for it.
func (r *reloader) stop() {
	r.once.Do(func() { close(r.done) })
	<-r.exited
}
