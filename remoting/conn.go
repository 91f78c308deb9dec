package remoting

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/internal/monotime"
)

const (
	// writeQueueLen bounds the batches waiting for the writer; a full queue
	// blocks the producer (backpressure).
	writeQueueLen = 256
	// maxHeldResponses: the read loop hands its responses to the writer at
	// the latest after this many.
	maxHeldResponses = 64
	// readBufferSize is the per-connection bufio.Reader size.
	readBufferSize = 16 << 10
	// maxBatchBytes ends a write batch even if more commands are queued.
	maxBatchBytes = 64 << 10
	// maxKeptBuffer: larger frame and batch buffers are not reused.
	maxKeptBuffer = 1 << 20
	// maxCopiedFrame is the largest frame whose body is copied out of the
	// read buffer; a larger frame gives its buffer to the command.
	maxCopiedFrame = 64 << 10
)

// batchPool recycles the writer's byte buffers, so idle connections hold
// none.
var batchPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// cmdsPool recycles the command batches handed to the writer.
var cmdsPool = sync.Pool{New: func() any { s := make([]*Command, 0, 16); return &s }}

// newCmds returns an empty batch from the pool.
func newCmds() *[]*Command { return cmdsPool.Get().(*[]*Command) }

// releaseCmds clears a written batch and returns it to the pool.
func releaseCmds(b *[]*Command) {
	clear(*b)
	*b = (*b)[:0]
	cmdsPool.Put(b)
}

// connConfig configures a Conn.
type connConfig struct {
	maxFrame   int
	idle       time.Duration // 0 = never idle
	log        hclog.Logger
	maxPending int64          // response bytes queued before reading stops; 0 = no cap
	budget     *frameBudget   // reserved by large frames while read; nil = none
	maxAsync   int            // async requests running at once; 0 = none allowed
	maxHeader  int            // largest header read; 0 = no limit
	clock      monotime.Clock // nil = monotime.System
}

// Conn is one remoting connection: the server side of an accepted
// connection, or the transport under a Client. Requests read from it are
// handled in order by its read loop (those of RegisterAsync codes are
// started in order and may finish in any); a writer goroutine batches what is
// queued for sending.
type Conn struct {
	id     uint64
	nc     net.Conn
	remote string
	cfg    connConfig
	log    hclog.Logger

	out         chan *[]*Command // batches for the writer
	held        *[]*Command      // read loop's responses not yet handed over
	heldBytes   int64            // estimated size of held
	spare       spareRequest     // a recycled request to decode the next frame into (read loop only)
	reserved    int64            // frame budget held by the frame being read or handled
	reading     uint64           // the frame budget's number of the frame being read; 0 = none
	queued      atomic.Int64     // estimated bytes handed to the writer, unwritten
	inflight    atomic.Int64     // batches handed to the writer, unwritten
	wmu         sync.Mutex       // held while writing: the writer's batches, the read loop's inline writes
	progress    chan struct{}    // signalled after each write (cap 1)
	stop        chan struct{}    // closed by Close or beginDrain: stop waiting
	stopOnce    sync.Once
	asyncSlots  chan struct{}  // one token per running async request
	asyncWG     sync.WaitGroup // running async requests
	stopWrite   chan struct{}  // closed when the read loop ends: drain, stop
	writerGone  chan struct{}  // closed when the writer has exited
	dead        chan struct{}  // closed when the connection is fully closed
	closeOnce   sync.Once
	abandoned   chan struct{} // closed by abandon: do not wait for async handlers
	abandonOnce sync.Once

	pmu        sync.Mutex
	pending    map[int32]chan *Command
	nextOpaque atomic.Int32

	// Idle decisions are taken on the monotonic clock (monotime.Mono
	// readings of cfg.clock), so a wall-clock step changes none of them.
	lastRead  atomic.Int64 // monotime.Mono of the last frame read
	lastWrite atomic.Int64 // monotime.Mono of the last completed write
	dlMu      sync.Mutex   // orders read-deadline changes with shutdown
	draining  atomic.Bool  // graceful shutdown: stop reading, flush, close
	readDL    int64        // read loop's current read deadline (monotime.Mono)
	writeDL   int64        // writer's current write deadline (monotime.Mono)
}

func newConn(id uint64, nc net.Conn, cfg connConfig) *Conn {
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	remote := nc.RemoteAddr().String()
	if cfg.clock == nil {
		cfg.clock = monotime.System
	}
	now := int64(cfg.clock.Mono())
	c := &Conn{
		id: id, nc: nc, remote: remote, cfg: cfg,
		log:        cfg.log.With("conn", id, "remote", remote),
		out:        make(chan *[]*Command, writeQueueLen),
		stopWrite:  make(chan struct{}),
		writerGone: make(chan struct{}),
		dead:       make(chan struct{}),
		abandoned:  make(chan struct{}),
		pending:    make(map[int32]chan *Command),
		held:       newCmds(),
		progress:   make(chan struct{}, 1),
		stop:       make(chan struct{}),
		asyncSlots: make(chan struct{}, max(cfg.maxAsync, 1)),
	}
	c.lastRead.Store(now)
	c.lastWrite.Store(now)
	return c
}

// ID returns the connection's id, unique and increasing within a server
// process; it identifies a session generation.
func (c *Conn) ID() uint64 { return c.id }

// RemoteAddr returns the peer's address as "host:port".
func (c *Conn) RemoteAddr() string { return c.remote }

// Close closes the connection at once; queued frames may be lost.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() { _ = c.nc.Close() })
	c.stopWaiting()
	return nil
}

// Done is closed when the connection is fully closed.
func (c *Conn) Done() <-chan struct{} { return c.dead }

// dispatchFunc handles a frame read from the connection and returns the
// frame to send back, or nil. recycle reports that nothing holds the
// frame's Command or its ExtFields map any more (see RegisterTransient):
// the read loop reuses them for the next frame.
type dispatchFunc func(*Command) (resp *Command, recycle bool)

// run serves the connection until it ends: the writer goroutine and the
// read loop. It returns why the read loop ended.
func (c *Conn) run(dispatch dispatchFunc) error {
	go c.writeLoop()
	err := c.readLoop(dispatch)
	if !errors.Is(err, errDraining) {
		_ = c.Close() // only a graceful drain flushes what is queued
	}
	c.awaitAsync()
	close(c.stopWrite)
	<-c.writerGone
	_ = c.Close()
	c.failPending()
	close(c.dead)
	return err
}

// awaitAsync waits for the running async handlers, whose responses are
// queued before the writer stops, unless a Shutdown past its deadline
// abandons the connection: then their responses are discarded.
func (c *Conn) awaitAsync() {
	if len(c.asyncSlots) == 0 {
		return // none running; a slot is freed after its response is queued
	}
	done := make(chan struct{})
	go func() { c.asyncWG.Wait(); close(done) }()
	select {
	case <-done:
	case <-c.abandoned:
	}
}

// abandon closes the connection without waiting for its async handlers,
// nor for room to send a TLS close_notify: the transport under a TLS
// connection is closed first (tls.Conn.Close would wait up to 5 s on a
// peer that stopped reading, and Shutdown abandons one connection after
// the other).
func (c *Conn) abandon() {
	c.abandonOnce.Do(func() { close(c.abandoned) })
	if tc, ok := c.nc.(interface{ NetConn() net.Conn }); ok {
		_ = tc.NetConn().Close()
	}
	_ = c.Close()
}

// enqueue hands cmd to the writer as a batch of one, blocking while the
// queue is full.
func (c *Conn) enqueue(cmd *Command) error {
	b := newCmds()
	*b = append(*b, cmd)
	return c.enqueueBatch(b)
}

// enqueueBatch hands a batch to the writer, blocking while the queue is
// full.
func (c *Conn) enqueueBatch(b *[]*Command) error {
	if c.closed() {
		return c.errClosed()
	}
	size := batchSize(*b)
	c.queued.Add(size)
	c.inflight.Add(1)
	select {
	case c.out <- b:
		return nil
	case <-c.writerGone:
		c.queued.Add(-size)
		c.inflight.Add(-1)
		return c.errClosed()
	}
}

// closed reports whether the writer is gone (nothing more will be sent).
func (c *Conn) closed() bool {
	select {
	case <-c.writerGone:
		return true
	default:
		return false
	}
}

func (c *Conn) errClosed() error {
	return fmt.Errorf("%w: connection %d to %s", ErrClosed, c.id, c.remote)
}

// SendOneway sends a request that expects no response. cmd is copied
// (shallowly): the copy gets a fresh opaque and the oneway flag. Neither cmd
// nor its map or body may change until the connection has written it.
func (c *Conn) SendOneway(cmd *Command) error {
	req := *cmd
	req.Opaque = c.nextOpaque.Add(1)
	req.Flag = (req.Flag &^ FlagResponse) | FlagOneway
	return c.enqueue(&req)
}

// Invoke sends a request and waits for the response with its opaque, until
// ctx ends (ErrTimeout wrapping ctx.Err()) or the connection closes
// (ErrClosed). cmd is copied (shallowly) and gets a fresh opaque. A handler
// must not Invoke on its own connection synchronously: the response would
// queue behind the handler in the read loop.
func (c *Conn) Invoke(ctx context.Context, cmd *Command) (*Command, error) {
	req := *cmd
	req.Opaque = c.nextOpaque.Add(1)
	req.Flag &^= FlagResponse | FlagOneway
	ch := make(chan *Command, 1)
	c.pmu.Lock()
	c.pending[req.Opaque] = ch
	c.pmu.Unlock()
	defer c.forget(req.Opaque)
	if err := c.send(ctx, &req); err != nil {
		return nil, err
	}
	return c.await(ctx, &req, ch)
}

// send queues req for the writer unless ctx ends first.
func (c *Conn) send(ctx context.Context, req *Command) error {
	if c.closed() {
		return c.errClosed()
	}
	b := newCmds()
	*b = append(*b, req)
	size := batchSize(*b)
	c.queued.Add(size)
	c.inflight.Add(1) // the writer takes it off, as for enqueueBatch
	select {
	case c.out <- b:
		return nil
	case <-c.writerGone:
		c.queued.Add(-size)
		c.inflight.Add(-1)
		return c.errClosed()
	case <-ctx.Done():
		c.queued.Add(-size)
		c.inflight.Add(-1)
		return fmt.Errorf("%w: code %d queued for %s: %w", ErrTimeout, req.Code, c.remote, ctx.Err())
	}
}

// await waits for the response to req on ch.
func (c *Conn) await(ctx context.Context, req *Command, ch chan *Command) (*Command, error) {
	select {
	case resp := <-ch:
		return resp, nil
	case <-c.dead:
		select {
		case resp := <-ch: // arrived just before the close
			return resp, nil
		default:
			return nil, c.errClosed()
		}
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: code %d to %s: %w", ErrTimeout, req.Code, c.remote, ctx.Err())
	}
}

func (c *Conn) forget(opaque int32) {
	c.pmu.Lock()
	delete(c.pending, opaque)
	c.pmu.Unlock()
}

// deliver hands a response to its waiting Invoke; unmatched responses are
// dropped (never answered).
func (c *Conn) deliver(resp *Command) {
	c.pmu.Lock()
	ch, ok := c.pending[resp.Opaque]
	delete(c.pending, resp.Opaque)
	c.pmu.Unlock()
	if !ok {
		c.log.Debug("dropping unmatched response", "opaque", resp.Opaque, "code", resp.Code)
		return
	}
	ch <- resp
}

// failPending drops all waiters; they see the connection closed.
func (c *Conn) failPending() {
	c.pmu.Lock()
	clear(c.pending)
	c.pmu.Unlock()
}

// fixResponse makes sure resp carries req's opaque and the response flag,
// copying it rather than changing a possibly shared command.
func fixResponse(req, resp *Command) *Command {
	if resp.Opaque == req.Opaque && resp.Flag&FlagResponse != 0 {
		return resp
	}
	fixed := *resp
	fixed.Opaque = req.Opaque
	fixed.Flag |= FlagResponse
	return &fixed
}
