package connlimit

import (
	"container/list"
	"net"
	"sync/atomic"
	"time"
)

// conn is an admitted connection; it gives its place back once, at its
// first Close or when a new connection takes it.
type conn struct {
	net.Conn
	l         *Listener
	seq       uint64        // admission order in the budget
	elem      *list.Element // in l.unproven until proven or released; guarded by the budget's lock
	released  bool          // guarded by the budget's lock
	proven    atomic.Bool
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

// Write proves the connection, before its peer can see the answer, when
// the listener proves on write.
func (c *conn) Write(b []byte) (int, error) {
	if len(b) > 0 && c.l.cfg.ProveOnWrite && !c.proven.Load() {
		c.prove()
	}
	return c.Conn.Write(b)
}

// Close closes the connection and releases its place.
func (c *conn) Close() error {
	err := c.Conn.Close()
	b := c.l.cfg.Budget
	b.mu.Lock()
	c.releaseLocked()
	b.mu.Unlock()
	return err
}

// releaseLocked gives the place back once; called with the budget's lock.
func (c *conn) releaseLocked() {
	if c.released {
		return
	}
	c.released = true
	c.dropLocked()
	c.l.open--
	c.l.cfg.Budget.used--
}

func (c *conn) dropLocked() {
	if c.elem != nil {
		c.l.unproven.Remove(c.elem)
		c.elem = nil
	}
}

func (c *conn) prove() {
	b := c.l.cfg.Budget
	b.mu.Lock()
	defer b.mu.Unlock()
	c.proven.Store(true)
	c.dropLocked()
}

// Prove marks a connection returned by a Listener's Accept as proven
// (its peer authenticated, or spoke the protocol): a new connection over
// a bound never takes its place. It reports false for other connections.
func Prove(nc net.Conn) bool {
	c, ok := nc.(*conn)
	if ok {
		c.prove()
	}
	return ok
}
