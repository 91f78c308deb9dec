package remoting

import (
	"fmt"
	"math"
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
	reserved := c.reserved // the request's frame budget is held until it is handled
	c.reserved = 0
	go func() {
		defer c.asyncWG.Done()
		defer func() { <-c.asyncSlots }()
		defer c.cfg.budget.release(reserved, true)
		if resp := fn(); resp != nil {
			if err := c.enqueue(resp); err != nil {
				c.log.Debug("response not sent", "code", resp.Code, "opaque", resp.Opaque, "error", err)
			}
		}
	}()
}
