package remoting

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/rmqgo/nameserver/internal/monotime"
)

// errDraining ends a read loop for a graceful shutdown.
var errDraining = errors.New("remoting: draining for shutdown")

// readLoop reads, decodes and dispatches frames in order until the
// connection fails, a bad frame arrives, it goes idle, or it is drained.
// Responses are held while more complete frames are buffered and handed to
// the writer in one batch, so pipelined requests get one write.
func (c *Conn) readLoop(dispatch dispatchFunc) error {
	r := bufio.NewReaderSize(c.nc, readBufferSize)
	var buf []byte
	defer c.handOver()
	defer c.releaseFrame()
	for {
		if !frameBuffered(r) || len(*c.held) >= maxHeldResponses || c.heldBytes >= maxBatchBytes {
			c.handOver()
		}
		if err := c.awaitCapacity(); err != nil {
			return err
		}
		if err := c.awaitFrame(r); err != nil {
			return err
		}
		frame, err := c.readFrame(r, buf)
		if err != nil {
			return c.readError(err)
		}
		// A large frame's buffer is handed to the command instead of copying
		// its body (a broker registration can be megabytes); only small
		// buffers are kept for the next frame.
		owned := len(frame) > maxCopiedFrame
		cmd, err := c.spare.decode(frame, !owned)
		buf = nil
		if !owned && cap(frame) <= maxKeptBuffer {
			buf = frame[:0]
		}
		if err != nil {
			return err
		}
		if c.cfg.idle > 0 {
			c.lastRead.Store(int64(c.cfg.clock.Mono()))
		}
		resp, recycle := dispatch(cmd)
		if resp != nil {
			*c.held = append(*c.held, resp)
			c.heldBytes += cmdSize(resp)
		}
		if recycle {
			c.spare.keep(cmd)
		}
		c.releaseFrame() // held while handled: a frame queued for a slow handler counts
	}
}

// handOver passes the held responses to the writer, or writes them itself
// when the writer has nothing queued and is not writing: a request answered
// while its connection has nothing else in flight (the usual client, one
// lookup at a time) then costs no hand-off between goroutines.
func (c *Conn) handOver() {
	if len(*c.held) == 0 {
		return
	}
	if c.writeInline() {
		clear(*c.held) // kept for the next responses, not pooled
		*c.held = (*c.held)[:0]
		c.heldBytes = 0
		return
	}
	if err := c.enqueueBatch(c.held); err != nil {
		c.log.Debug("responses not sent", "count", len(*c.held), "error", err)
		releaseCmds(c.held)
	}
	c.held = newCmds()
	c.heldBytes = 0
}

// frameBuffered reports whether a complete frame is buffered in r.
func frameBuffered(r *bufio.Reader) bool {
	n := r.Buffered()
	if n < 4 {
		return false
	}
	hdr, _ := r.Peek(4)
	return n-4 >= int(int32(binary.BigEndian.Uint32(hdr)))
}

// readError names a deadline hit inside a frame: draining or idle.
func (c *Conn) readError(err error) error {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	if c.draining.Load() {
		return errDraining
	}
	return fmt.Errorf("%w: stalled inside a frame: %w", ErrIdle, err)
}

// awaitFrame waits until the next frame's length field is buffered, keeping
// the read deadline at the idle limit. It is the only place that waits
// between frames, so the idle check and draining happen here.
func (c *Conn) awaitFrame(r *bufio.Reader) error {
	for {
		if c.draining.Load() {
			return errDraining
		}
		if c.cfg.idle > 0 && !c.refreshReadDeadline(false) {
			return errDraining
		}
		hdr, err := r.Peek(4)
		if err == nil {
			return c.prepareFrame(r, hdr)
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			return err
		}
		if c.draining.Load() {
			return errDraining
		}
		if c.idleFor() >= c.cfg.idle {
			return fmt.Errorf("%w: no read or write for %s", ErrIdle, c.cfg.idle)
		}
		c.readDL = 0 // reached before the idle limit: set it again
	}
}

// prepareFrame pushes the deadline a full idle period ahead when the frame
// is not buffered yet, so a frame that arrives at a steady pace is not cut.
func (c *Conn) prepareFrame(r *bufio.Reader, hdr []byte) error {
	if c.cfg.idle <= 0 {
		return nil
	}
	length := int(int32(binary.BigEndian.Uint32(hdr)))
	if r.Buffered()-4 >= length {
		return nil
	}
	if !c.refreshReadDeadline(true) {
		return errDraining
	}
	return nil
}

// idleFor is the time since the last read or write (monotonic).
func (c *Conn) idleFor() time.Duration {
	last := max(c.lastRead.Load(), c.lastWrite.Load())
	return c.cfg.clock.Mono().Sub(monotime.Mono(last))
}

// deadline is the socket deadline at the monotonic reading at: a
// time.Time carrying Go's monotonic reading, which the runtime's poller
// waits for on the monotonic clock too.
func (c *Conn) deadline(at int64) time.Time {
	return time.Now().Add(monotime.Mono(at).Sub(c.cfg.clock.Mono()))
}

// refreshReadDeadline sets the read deadline to the last activity plus the
// idle timeout (now plus idle when force), skipping the syscall-free but not
// free deadline update while the current one is still far away. It reports
// false when the connection is draining (whose past deadline must stay).
//
// Without force it reads no clock (once per frame, the clock was a
// measurable part of a lookup): the skip is judged from the last activity,
// which is not after now, so a kept deadline is at least 7/8 of the idle
// timeout after the last activity. Reaching it early only wakes awaitFrame,
// which finds the connection not idle and sets the deadline again.
func (c *Conn) refreshReadDeadline(force bool) bool {
	idle := int64(c.cfg.idle)
	last := max(c.lastRead.Load(), c.lastWrite.Load())
	want := last + idle
	if force {
		want = int64(c.cfg.clock.Mono()) + idle
	} else if c.readDL-last > idle*7/8 && c.readDL <= want {
		return true
	}
	c.dlMu.Lock()
	defer c.dlMu.Unlock()
	if c.draining.Load() {
		return false
	}
	c.readDL = want
	_ = c.nc.SetReadDeadline(c.deadline(want))
	return true
}

// beginDrain makes the read loop stop at the next frame boundary (or at
// once if it is waiting), after which queued frames are flushed and the
// connection closed.
func (c *Conn) beginDrain() {
	c.dlMu.Lock()
	defer c.dlMu.Unlock()
	c.draining.Store(true)
	_ = c.nc.SetReadDeadline(time.Unix(1, 0))
	c.stopWaiting()
}

// writeLoop writes queued commands in batches until the read loop ends (then
// drains the queue) or a write fails (then closes the connection).
func (c *Conn) writeLoop() {
	defer close(c.writerGone)
	for {
		select {
		case b := <-c.out:
			if err := c.writeBatch(b); err != nil {
				c.log.Debug("write failed", "error", err)
				_ = c.Close()
				return
			}
		case <-c.stopWrite:
			c.drainQueue()
			return
		}
	}
}

// drainQueue writes whatever is still queued.
func (c *Conn) drainQueue() {
	for {
		select {
		case b := <-c.out:
			if c.writeBatch(b) != nil {
				return
			}
		default:
			return
		}
	}
}

// writeInline writes the held responses on the read loop when no batch
// handed to the writer is unwritten (so responses stay in order) and the
// writer is not writing. A failed write closes the connection, as the
// writer does. It reports whether it wrote the held responses (which the
// caller then clears).
func (c *Conn) writeInline() bool {
	if c.inflight.Load() != 0 || !c.wmu.TryLock() {
		return false
	}
	defer c.wmu.Unlock()
	if c.inflight.Load() != 0 || c.closed() {
		return false
	}
	bp := batchPool.Get().(*[]byte)
	w := batchWrite{buf: (*bp)[:0]}
	c.encodeCommands(&w, *c.held)
	if err := c.write(&w); err != nil {
		c.log.Debug("write failed", "error", err)
		_ = c.Close()
	}
	if cap(w.buf) <= maxKeptBuffer {
		*bp = w.buf[:0]
		batchPool.Put(bp)
	}
	return true
}

// maxRecycledExt is the most extFields entries a recycled map may hold: a
// map keeps its buckets when cleared, so a connection keeps no large one
// (16 entries: about 1 KiB). It covers the Controller's BROKER_HEARTBEAT,
// whose 9 fields (11 with ACL's) outgrow a map's first group: without
// recycling, every heartbeat grew a new map to a table.
const maxRecycledExt = 16

// spareRequest is the Command (and its cleared ExtFields map) of the last
// request whose handler was registered with RegisterTransient, kept by the
// read loop to decode the next frame into: a route lookup then costs no
// Command and no map allocation. Only the read loop touches it.
type spareRequest struct {
	cmd *Command
	ext map[string]string
}

// decode decodes frame into the spare Command and map when there are
// some, otherwise into new ones (see decodeFrame).
func (sp *spareRequest) decode(frame []byte, copyBody bool) (*Command, error) {
	c := sp.cmd
	sp.cmd = nil
	if c == nil {
		c = &Command{}
	}
	used, err := decodeFrameInto(frame, copyBody, c, sp.ext)
	if used {
		sp.ext = nil
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// keep takes back cmd, which nothing else holds any more: its fields are
// zeroed and its map, if small, cleared for the next frame.
func (sp *spareRequest) keep(cmd *Command) {
	if m := cmd.ExtFields; m != nil && sp.ext == nil && len(m) <= maxRecycledExt {
		clear(m)
		sp.ext = m
	}
	*cmd = Command{}
	sp.cmd = cmd
}
