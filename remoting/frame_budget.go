package remoting

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
)

// DefaultMaxHeaderLength is the default largest header a server reads.
// Java's RemotingCommand headers are small (a KV config value is the
// largest a name server sees), and a header of many small ext fields
// decodes to about four times its wire size.
const DefaultMaxHeaderLength = 8 << 20

// decodedHeaderFactor is what a large header costs once decoded, per wire
// byte, charged to the frame budget before it is decoded.
const decodedHeaderFactor = 4

// frameBudget is the server-wide count of bytes reserved by frames read
// while their bytes arrive, held until the request is handled, so that many
// half-sent or queued frames cannot exhaust memory. Frames reserve chunk by
// chunk; so that frames holding part of the budget cannot all wait for
// more, the oldest frame still being read may also take what other readers
// hold (never what handled frames hold): it always completes, and at most
// twice the budget is reserved.
type frameBudget struct {
	mu      sync.Mutex
	total   int64
	free    int64
	handled int64         // reserved by frames read completely, until handled
	readers []uint64      // frames being read, oldest first
	next    uint64        // the last frame's sequence number
	changed chan struct{} // closed and replaced on every release
}

func newFrameBudget(total int64) *frameBudget {
	return &frameBudget{total: total, free: total, changed: make(chan struct{})}
}

// beginRead registers a frame being read and returns its sequence number.
func (b *frameBudget) beginRead() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	b.readers = append(b.readers, b.next)
	return b.next
}

// endRead unregisters frame seq; if complete, its own bytes are now held
// by a frame being handled.
func (b *frameBudget) endRead(seq uint64, own int64, complete bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i := slices.Index(b.readers, seq); i >= 0 {
		b.readers = slices.Delete(b.readers, i, i+1)
	}
	if complete {
		b.handled += own
	}
	b.wake()
}

// tryTake takes n more bytes for frame seq, which holds own, if they are
// free (or seq is the oldest reader and handled frames leave room);
// otherwise it returns a channel closed at the next change.
func (b *frameBudget) tryTake(seq uint64, own, n int64) (bool, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	oldest := len(b.readers) > 0 && b.readers[0] == seq
	if b.free >= n || (oldest && b.handled+own+n <= b.total) {
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

// release returns n bytes (held by a frame being handled if handled) and
// wakes the waiters; b may be nil.
func (b *frameBudget) release(n int64, handled bool) {
	if b == nil || n <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free += n
	if handled {
		b.handled -= n
	}
	b.wake()
}

// wake wakes the waiters; b.mu is held.
func (b *frameBudget) wake() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// readFrame reads the next frame like ReadFrame. On a server connection a
// header over maxHeader closes it; a frame already buffered is taken as
// is, and one still arriving is read chunk by chunk as its bytes arrive,
// each chunk first reserved from the frame budget (c.reserved, given back
// by releaseFrame once the request is handled). A sender that stops holds
// what it sent, until the idle timeout cuts it.
func (c *Conn) readFrame(r *bufio.Reader, buf []byte) ([]byte, error) {
	length, err := readLength(r, c.cfg.maxFrame)
	if err != nil {
		return nil, err
	}
	if c.cfg.budget == nil {
		return readFrameBody(r, length, buf)
	}
	if err := c.checkHeader(r); err != nil {
		return nil, err
	}
	if r.Buffered() >= length {
		return readFrameBody(r, length, buf)
	}
	c.reading = c.cfg.budget.beginRead()
	frame, err := c.readArriving(r, length)
	if err == nil {
		err = c.reserveDecoding(frame)
	}
	if err != nil {
		return nil, err // releaseFrame ends the read
	}
	c.cfg.budget.endRead(c.reading, c.reserved, true)
	c.reading = 0
	return frame, nil
}

// checkHeader waits for the header word of the frame and rejects a header
// longer than maxHeader before anything is allocated.
func (c *Conn) checkHeader(r *bufio.Reader) error {
	word, err := r.Peek(4)
	if err != nil {
		return truncated(err)
	}
	n := int(binary.BigEndian.Uint32(word) & maxHeaderLength)
	if c.cfg.maxHeader > 0 && n > c.cfg.maxHeader {
		return fmt.Errorf("%w: header of %d bytes, max %d", ErrBadHeader, n, c.cfg.maxHeader)
	}
	return nil
}

// readArriving reads a frame of n bytes in chunks, each allocated and
// reserved only once its first byte has arrived.
func (c *Conn) readArriving(r *bufio.Reader, n int) ([]byte, error) {
	var chunks [][]byte
	for got := 0; got < n; {
		if err := c.awaitBytes(r); err != nil {
			return nil, err
		}
		size := chunkSize(n, got)
		if err := c.reserveFrame(int64(size)); err != nil {
			return nil, err
		}
		if err := c.pushReadDeadline(); err != nil { // the wait for budget is not the peer's
			return nil, err
		}
		chunk := newChunk(size, got)
		if _, err := io.ReadFull(r, chunk); err != nil {
			return nil, truncated(err)
		}
		chunks = append(chunks, chunk)
		got += size
	}
	return joinChunks(chunks), nil
}

// awaitBytes waits for the next byte of a frame, at most the idle timeout
// from now: a frame that makes progress is never cut.
func (c *Conn) awaitBytes(r *bufio.Reader) error {
	if err := c.pushReadDeadline(); err != nil {
		return err
	}
	_, err := r.Peek(1)
	return truncated(err)
}

// pushReadDeadline sets the read deadline an idle timeout from now.
func (c *Conn) pushReadDeadline() error {
	if c.cfg.idle > 0 && !c.refreshReadDeadline(true) {
		return errDraining
	}
	return nil
}

// reserveDecoding charges a large header's decoded size to the budget.
func (c *Conn) reserveDecoding(frame []byte) error {
	headerLen := int64(binary.BigEndian.Uint32(frame) & maxHeaderLength)
	if headerLen <= readChunk {
		return nil
	}
	return c.reserveFrame(decodedHeaderFactor * headerLen)
}

// reserveFrame adds n bytes to the current frame's reservation; a frame
// holds at most the whole budget (then it is read alone).
func (c *Conn) reserveFrame(n int64) error {
	n = min(n, c.cfg.budget.total-c.reserved)
	if n <= 0 {
		return nil
	}
	if err := c.reserve(n); err != nil {
		return err
	}
	c.reserved += n
	return nil
}

// releaseFrame gives back the current frame's reservation, ending its
// read if it failed.
func (c *Conn) releaseFrame() {
	b := c.cfg.budget
	if b == nil {
		return
	}
	handled := c.reading == 0
	if !handled {
		b.endRead(c.reading, 0, false)
		c.reading = 0
	}
	b.release(c.reserved, handled)
	c.reserved = 0
}

// reserve takes n bytes of the frame budget, waiting at most the idle
// timeout (then ErrOverloaded) while other connections hold it.
func (c *Conn) reserve(n int64) error {
	b := c.cfg.budget
	ok, changed := b.tryTake(c.reading, c.reserved, n)
	if ok {
		return nil
	}
	var expired <-chan time.Time
	if c.cfg.idle > 0 {
		t := time.NewTimer(c.cfg.idle)
		defer t.Stop()
		expired = t.C
	}
	for !ok {
		select {
		case <-changed:
		case <-expired:
			return fmt.Errorf("%w: no frame budget for %d bytes within %s", ErrOverloaded, n, c.cfg.idle)
		case <-c.stop:
			return c.stopped()
		}
		ok, changed = b.tryTake(c.reading, c.reserved, n)
	}
	return nil
}
