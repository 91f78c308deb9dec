//go:build embedded_controller

package controller

import (
	"context"
	"sync"
	"time"

	"github.com/rmqgo/nameserver/remoting"
)

// notifyPoolMax bounds the connections the notifier keeps open to
// brokers' own listening addresses, which are a stranger's values (any
// member that heartbeats chooses one): at the bound, the least recently
// used connection is closed to make room. It equals the bound of
// deliveries in flight, so every delivery in flight can hold one.
const notifyPoolMax = maxNotifyInflight

// notifyIdleTimeout closes a pooled connection unused this long (Java's
// clientChannelMaxIdleTimeSeconds, 120 s); the sweep runs every quarter of it.
const notifyIdleTimeout = 120 * time.Second

// dialFunc opens a notifier connection to addr.
type dialFunc func(ctx context.Context, addr string) (*remoting.Client, error)

// notifyPool caches one connection per broker address, as Java's
// NettyRemotingClient caches a channel per address: a storm of elections
// sends its 1008s over connections already open instead of dialling one
// per notification. A connection the broker closed is dropped at its next
// use; one unused for idle is closed by sweep. Ages use the monotonic clock.
type notifyPool struct {
	dial dialFunc
	max  int
	idle time.Duration

	// onDead, if set, is told of a connection that closed without the
	// pool closing it (the broker closed it, or a send on it failed); it
	// runs on the connection's watcher, without the pool's lock.
	onDead func(addr string, c *remoting.Client)
	// onRetired, if set, is told of a connection the pool closed itself
	// (idle, evicted, replaced, unpooled, shut down).
	onRetired func(addr string, c *remoting.Client)

	mu       sync.Mutex
	conns    map[string]*pooledConn
	watched  map[*remoting.Client]*connWatch // every connection dialled and not yet gone
	closed   bool
	wg       sync.WaitGroup // closes running in the background
	watchers sync.WaitGroup // one per watched connection, until it is gone
}

// connWatch is what the pool knows of a dialled connection's end.
type connWatch struct {
	addr    string
	retired bool // closed by the pool, not found dead
	dead    bool // found dead, or a send on it failed: never retired
}

type pooledConn struct {
	c    *remoting.Client
	used time.Time // monotonic reading: ages are time.Since(used)
	busy int       // deliveries using c: never evicted while above 0
}

func newNotifyPool(dial dialFunc, maxConns int, idle time.Duration) *notifyPool {
	return &notifyPool{dial: dial, max: maxConns, idle: idle, conns: map[string]*pooledConn{},
		watched: map[*remoting.Client]*connWatch{}}
}

// get returns the pooled connection to addr (reused true) or dials one,
// marked in use until release(addr, c).
func (p *notifyPool) get(ctx context.Context, addr string) (c *remoting.Client, reused bool, err error) {
	if c := p.cached(addr); c != nil {
		return c, true, nil
	}
	c, err = p.dial(ctx, addr)
	if err != nil {
		return nil, false, err
	}
	p.watch(addr, c)
	p.put(addr, c)
	return c, false, nil
}

// watch waits in the background for c to be gone: the client's read loop
// ends it on EOF or a reset, its writer on a failed write. Unless the pool
// closed c itself, onDead is told.
func (p *notifyPool) watch(addr string, c *remoting.Client) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return // put refuses c; release closes it
	}
	w := &connWatch{addr: addr}
	p.watched[c] = w
	p.watchers.Add(1)
	go func() {
		defer p.watchers.Done()
		<-c.Done()
		p.mu.Lock()
		delete(p.watched, c)
		if pc, ok := p.conns[addr]; ok && pc.c == c {
			delete(p.conns, addr)
		}
		retired := w.retired
		p.mu.Unlock()
		if retired && p.onRetired != nil {
			p.onRetired(addr, c)
		} else if !retired && p.onDead != nil {
			p.onDead(addr, c)
		}
	}()
}

// release ends a use of c begun by get; a connection that is not pooled
// (no room, replaced, dropped) is closed once its last use ends.
func (p *notifyPool) release(addr string, c *remoting.Client) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pc, ok := p.conns[addr]
	if !ok || pc.c != c {
		p.closeLocked(c)
		return
	}
	pc.busy--
	pc.used = time.Now()
}

// cached returns addr's live pooled connection, dropping a dead one.
func (p *notifyPool) cached(addr string) *remoting.Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	pc, ok := p.conns[addr]
	if !ok {
		return nil
	}
	select {
	case <-pc.c.Done():
		delete(p.conns, addr)
		p.discardLocked(pc.c)
		return nil
	default:
	}
	pc.used = time.Now()
	pc.busy++
	return pc.c
}

// put pools c for addr (in use once), unless the pool is closed or every
// pooled connection is in use (release then closes c). An idle older
// connection to addr is replaced; at the bound the least recently used
// idle one is evicted. A connection in use is never closed here: a frame
// queued on a connection closing under it could be lost.
func (p *notifyPool) put(addr string, c *remoting.Client) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if old, ok := p.conns[addr]; ok {
		if old.busy > 0 {
			return // a concurrent use of addr: c stays unpooled
		}
		p.closeLocked(old.c)
		delete(p.conns, addr)
	}
	for len(p.conns) >= p.max {
		if !p.evictOldestLocked() {
			return
		}
	}
	p.conns[addr] = &pooledConn{c: c, used: time.Now(), busy: 1}
}

// drop closes addr's connection if it is still c (after a failed send).
func (p *notifyPool) drop(addr string, c *remoting.Client) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pc, ok := p.conns[addr]; ok && pc.c == c {
		delete(p.conns, addr)
	}
	p.discardLocked(c)
}

// evictOldestLocked closes the least recently used idle connection; false
// when every one is in use.
func (p *notifyPool) evictOldestLocked() bool {
	var oldest string
	var at time.Time
	for addr, pc := range p.conns {
		if pc.busy == 0 && (oldest == "" || pc.used.Before(at)) {
			oldest, at = addr, pc.used
		}
	}
	if oldest == "" {
		return false
	}
	p.closeLocked(p.conns[oldest].c)
	delete(p.conns, oldest)
	return true
}

// closeLocked closes c in the background (Close flushes queued oneway
// frames for up to 3 s), as the pool's own choice: its watcher does not
// report it dead, unless it was found dead first. closeAll waits for these.
func (p *notifyPool) closeLocked(c *remoting.Client) {
	if w, ok := p.watched[c]; ok && !w.dead {
		select {
		case <-c.Done():
		default:
			w.retired = true
		}
	}
	p.closeInBackgroundLocked(c)
}

// discardLocked closes c in the background, found dead (or a send on it
// failed): its watcher reports it dead unless the pool closed it first.
func (p *notifyPool) discardLocked(c *remoting.Client) {
	if w, ok := p.watched[c]; ok && !w.retired {
		w.dead = true
	}
	p.closeInBackgroundLocked(c)
}

// closeInBackgroundLocked closes c on a goroutine closeAll waits for.
func (p *notifyPool) closeInBackgroundLocked(c *remoting.Client) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		_ = c.Close()
	}()
}

// sweep closes the connections idle longer than p.idle or already dead.
func (p *notifyPool) sweep() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for addr, pc := range p.conns {
		dead := false
		select {
		case <-pc.c.Done():
			dead = true
		default:
		}
		if dead {
			delete(p.conns, addr)
			p.discardLocked(pc.c)
		} else if pc.busy == 0 && time.Since(pc.used) > p.idle {
			delete(p.conns, addr)
			p.closeLocked(pc.c)
		}
	}
}

// run sweeps every quarter of the idle timeout until ctx is done.
func (p *notifyPool) run(ctx context.Context) {
	p.mu.Lock()
	every := max(p.idle/4, time.Millisecond)
	p.mu.Unlock()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.sweep()
		}
	}
}

// size is the number of pooled connections.
func (p *notifyPool) size() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// closeAll refuses further pooling, closes every connection and waits
// until all are closed.
func (p *notifyPool) closeAll() {
	p.mu.Lock()
	p.closed = true
	for addr, pc := range p.conns {
		delete(p.conns, addr)
		p.closeLocked(pc.c)
	}
	p.mu.Unlock()
	p.wg.Wait()
	p.watchers.Wait()
}
