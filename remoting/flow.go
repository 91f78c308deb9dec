package remoting

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// cmdSize estimates the encoded size of cmd: its body, remark and ext
// fields (key and value lengths plus a per-field overhead for framing and
// JSON quoting) plus a fixed header; large values, such as a KV config
// value answered in an ext field, count at their real size.
func cmdSize(cmd *Command) int64 {
	n := 128 + int64(len(cmd.Remark)+len(cmd.Body))
	for k, v := range cmd.ExtFields {
		n += int64(len(k)+len(v)) + 16
	}
	return n
}

// batchSize is the estimated encoded size of a batch.
func batchSize(b []*Command) int64 {
	var n int64
	for _, cmd := range b {
		n += cmdSize(cmd)
	}
	return n
}

// stopWaiting wakes the read loop from a wait for the writer, the frame
// budget or an async slot (Close, beginDrain).
func (c *Conn) stopWaiting() { c.stopOnce.Do(func() { close(c.stop) }) }

// stopped is the error of a wait ended by stopWaiting.
func (c *Conn) stopped() error {
	if c.draining.Load() {
		return errDraining
	}
	return c.errClosed()
}

// awaitCapacity is the back-pressure of the response cap: while the
// responses handed to the writer (and held) reach maxPending bytes, the
// read loop reads nothing. A connection that neither reads nor writes for
// the idle timeout meanwhile is closed (ErrIdle).
func (c *Conn) awaitCapacity() error {
	limit := c.cfg.maxPending
	if limit <= 0 || c.queued.Load()+c.heldBytes < limit {
		return nil
	}
	c.handOver()
	for c.queued.Load() >= limit {
		if err := c.waitProgress(); err != nil {
			return err
		}
	}
	return nil
}

// waitProgress waits for the writer to finish a write, the idle limit, or
// the connection's end.
func (c *Conn) waitProgress() error {
	wait := time.Duration(math.MaxInt64)
	if c.cfg.idle > 0 {
		if wait = c.cfg.idle - c.idleFor(); wait <= 0 {
			return fmt.Errorf("%w: %d response bytes unsent for %s", ErrIdle, c.queued.Load(), c.cfg.idle)
		}
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-c.progress:
	case <-t.C:
	case <-c.writerGone:
		return c.errClosed()
	case <-c.stop:
		return c.stopped()
	}
	return nil
}

// frameBudget is the server-wide count of bytes reserved by large frames
// while their bodies are read, so that many half-sent large frames cannot
// exhaust memory.
type frameBudget struct {
	mu      sync.Mutex
	total   int64
	free    int64
	changed chan struct{} // closed and replaced on every release
}

func newFrameBudget(total int64) *frameBudget {
	return &frameBudget{total: total, free: total, changed: make(chan struct{})}
}

// tryTake takes n bytes if they are free; otherwise it returns a channel
// closed at the next release.
func (b *frameBudget) tryTake(n int64) (bool, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.free >= n {
		b.free -= n
		return true, nil
	}
	return false, b.changed
}

// available returns the bytes not reserved.
func (b *frameBudget) available() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.free
}

// release returns n bytes and wakes the waiters.
func (b *frameBudget) release(n int64) {
	b.mu.Lock()
	b.free += n
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// reserve takes n bytes of the frame budget, waiting at most the idle
// timeout (then ErrOverloaded) while other connections hold it.
func (c *Conn) reserve(n int64) error {
	b := c.cfg.budget
	var expired <-chan time.Time
	if c.cfg.idle > 0 {
		t := time.NewTimer(c.cfg.idle)
		defer t.Stop()
		expired = t.C
	}
	for {
		ok, changed := b.tryTake(n)
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-expired:
			return fmt.Errorf("%w: no frame budget for %d bytes within %s", ErrOverloaded, n, c.cfg.idle)
		case <-c.stop:
			return c.stopped()
		}
	}
}

// runAsync runs fn (a request of a RegisterAsync code) on its own goroutine
// and queues its response when done. With maxAsync requests of this
// connection running, the read loop first waits for one to end.
func (c *Conn) runAsync(fn func() *Command) {
	select {
	case c.asyncSlots <- struct{}{}:
	default:
		c.handOver() // what is held must not wait for the slot
		c.asyncSlots <- struct{}{}
	}
	c.asyncWG.Add(1)
	go func() {
		defer c.asyncWG.Done()
		defer func() { <-c.asyncSlots }()
		if resp := fn(); resp != nil {
			if err := c.enqueue(resp); err != nil {
				c.log.Debug("response not sent", "code", resp.Code, "opaque", resp.Opaque, "error", err)
			}
		}
	}()
}
