//go:build embedded_controller

package controller

import (
	"context"
	"crypto/tls"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/internal/lograte"
	"github.com/rmqgo/nameserver/remoting"
)

// notifier delivers NOTIFY_BROKER_ROLE_CHANGED (1008) to brokers on their
// own listening address, oneway, in the background (Java's NotifyService).
// It keeps one delivery per address: a newer master epoch cancels an older
// delivery still in flight, and an older or equal one is dropped.
type notifier struct {
	ctx      context.Context
	logger   hclog.Logger
	observer Observer
	version  int32
	tls      func() *tls.Config // the client side of WithTLS; nil → plaintext

	pool     *notifyPool
	stopPool context.CancelFunc // ends the pool's idle sweep
	recent   *recentNotifies    // 1008s written lately, sent again if their connection dies

	mu       sync.Mutex
	inflight map[string]*delivery
	pending  map[string]roleChangeNotifyEntry // waiting for a slot: the newest epoch per address
	order    []string                         // pending's addresses, oldest first
	closed   bool
	wg       sync.WaitGroup

	// Lines a stranger can cause (its own sets' members, at addresses of
	// its choosing): one a second each, counting the rest.
	failedLogs, sentLogs, droppedLogs, resentLogs lograte.Limiter
}

// maxNotifyInflight bounds the deliveries in flight (each holds a
// goroutine and a file descriptor for up to notifyTimeout): a stranger that
// heartbeats for its own sets' members and elects in turn made the
// controller dial one address of its choosing per member at once. A
// notification over the bound waits for a slot (maxNotifyPending).
const maxNotifyInflight = 256

// maxNotifyPending bounds the notifications waiting for a delivery slot
// (one per address, the newest epoch kept), so that a failover storm's new
// masters all get their 1008 as slots free. Past it a notification is
// dropped; the broker learns its role at its next metadata sync with the
// controller, as after a lost one.
const maxNotifyPending = 4096

type delivery struct {
	epoch  int32
	cancel context.CancelFunc
}

func newNotifier(ctx context.Context, logger hclog.Logger, obs Observer, version int32) *notifier {
	n := &notifier{ctx: ctx, logger: logger.Named("notify"), observer: obs, version: version,
		inflight: map[string]*delivery{}, pending: map[string]roleChangeNotifyEntry{}}
	n.failedLogs.Every, n.sentLogs.Every, n.droppedLogs.Every, n.resentLogs.Every = time.Second, time.Second, time.Second, time.Second
	n.pool = newNotifyPool(n.dial, notifyPoolMax, notifyIdleTimeout)
	n.recent = newRecentNotifies()
	n.pool.onDead, n.pool.onRetired = n.resendLost, n.recent.forget
	var sweepCtx context.Context
	sweepCtx, n.stopPool = context.WithCancel(ctx)
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		n.pool.run(sweepCtx)
	}()
	return n
}

// send starts delivering e to addr unless a delivery of a newer or equal
// epoch is in flight.
func (n *notifier) send(addr string, e roleChangeNotifyEntry) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed || n.ctx.Err() != nil {
		return
	}
	n.sendLocked(addr, e)
}

// sendLocked is send under n.mu, the notifier open.
func (n *notifier) sendLocked(addr string, e roleChangeNotifyEntry) {
	if d, ok := n.inflight[addr]; ok {
		if d.epoch >= e.MasterEpoch {
			return
		}
		d.cancel()
	} else if len(n.inflight) >= maxNotifyInflight {
		n.enqueueLocked(addr, e)
		return
	}
	n.startLocked(addr, e)
}

// enqueueLocked keeps e until a slot frees, replacing an older epoch for
// the same address; past maxNotifyPending it is dropped.
func (n *notifier) enqueueLocked(addr string, e roleChangeNotifyEntry) {
	if p, ok := n.pending[addr]; ok {
		if e.MasterEpoch > p.MasterEpoch {
			n.pending[addr] = e
		}
		return
	}
	if len(n.pending) >= maxNotifyPending {
		if ok, suppressed := n.droppedLogs.Allow(time.Now()); ok {
			n.logger.Warn("role change notification dropped: too many waiting", "addr", addr,
				"inflight", len(n.inflight), "waiting", len(n.pending), "suppressed", suppressed)
		}
		return
	}
	n.pending[addr] = e
	n.order = append(n.order, addr)
}

// startPendingLocked starts waiting notifications while slots are free.
func (n *notifier) startPendingLocked() {
	for len(n.order) > 0 && len(n.inflight) < maxNotifyInflight && !n.closed && n.ctx.Err() == nil {
		addr := n.order[0]
		n.order = n.order[1:]
		e := n.pending[addr]
		delete(n.pending, addr)
		if d, ok := n.inflight[addr]; ok {
			if d.epoch >= e.MasterEpoch {
				continue
			}
			d.cancel()
		}
		n.startLocked(addr, e)
	}
	if len(n.order) == 0 {
		n.order = nil
	}
}

// startLocked starts the delivery of e to addr in the background.
func (n *notifier) startLocked(addr string, e roleChangeNotifyEntry) {
	ctx, cancel := context.WithTimeout(n.ctx, notifyTimeout)
	d := &delivery{epoch: e.MasterEpoch, cancel: cancel}
	n.inflight[addr] = d
	n.wg.Add(1)
	go n.deliver(ctx, addr, e, d)
}

// deliver sends the request oneway over the pooled connection to addr.
func (n *notifier) deliver(ctx context.Context, addr string, e roleChangeNotifyEntry, d *delivery) {
	defer n.wg.Done()
	defer n.finish(addr, d)
	err := n.sendOneway(ctx, addr, e)
	if err != nil {
		if ok, suppressed := n.failedLogs.Allow(time.Now()); ok {
			n.logger.Warn("role change notification failed", "addr", addr, "masterEpoch", e.MasterEpoch, "error", err,
				"suppressed", suppressed)
		}
	} else if ok, suppressed := n.sentLogs.Allow(time.Now()); ok {
		n.logger.Info("role change notified", "addr", addr, "master", e.MasterBrokerID, "masterEpoch", e.MasterEpoch,
			"suppressed", suppressed)
	}
	n.observer.NotifySent(addr, e.MasterEpoch, err)
}

// sendOneway sends e over the pooled connection to addr, dialling one when
// there is none; a send that fails on a reused connection (the broker
// closed it since) is retried once on a new one.
func (n *notifier) sendOneway(ctx context.Context, addr string, e roleChangeNotifyEntry) error {
	req := remoting.NewRequest(remoting.NotifyBrokerRoleChanged, e.ExtFields(), e.BodyBytes())
	req.Version = n.version
	client, reused, err := n.pool.get(ctx, addr)
	if err != nil {
		return err
	}
	if err = n.sendOn(ctx, addr, client, req, e); err == nil || !reused {
		return err
	}
	if client, _, err = n.pool.get(ctx, addr); err != nil {
		return err
	}
	return n.sendOn(ctx, addr, client, req, e)
}

// resendLost sends again the 1008s written lately on c, which was found
// dead: they may have landed in a socket the broker had closed. A broker
// that had read one ignores the copy (its epoch is not above its own).
func (n *notifier) resendLost(addr string, c *remoting.Client) {
	for _, e := range n.recent.take(addr, c) {
		if ok, suppressed := n.resentLogs.Allow(time.Now()); ok {
			n.logger.Info("role change notification sent again: its connection closed just after the write",
				"addr", addr, "masterEpoch", e.MasterEpoch, "suppressed", suppressed)
		}
		n.sendAgain(addr, e)
	}
}

// sendAgain is send for a copy: an equal epoch in flight does not drop it
// but makes it wait for a slot (the delivery in flight may be the one
// whose write was lost, still ending).
func (n *notifier) sendAgain(addr string, e roleChangeNotifyEntry) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed || n.ctx.Err() != nil {
		return
	}
	if d, ok := n.inflight[addr]; ok && d.epoch == e.MasterEpoch {
		n.enqueueLocked(addr, e)
		return
	}
	n.sendLocked(addr, e)
}

// sendOn queues req on client. A broker that stops reading fills the
// connection's queue and blocks the send: when ctx ends first, the
// connection is closed (its writer gets a deadline), which ends the send.
// It ends the use of client begun by the pool's get.
func (n *notifier) sendOn(ctx context.Context, addr string, client *remoting.Client, req *remoting.Command,
	e roleChangeNotifyEntry) error {
	n.recent.note(addr, client, e, len(req.Body)+len(e.Group.Cluster)+len(e.Group.BrokerName)+64)
	stop := context.AfterFunc(ctx, func() { n.pool.drop(addr, client) })
	err := client.InvokeOneway(req)
	stop()
	if err != nil {
		n.recent.unnote(addr, client, e)
		n.pool.drop(addr, client)
	}
	n.pool.release(addr, client)
	return err
}

// dial opens a connection for the pool (TLS as the controller's clients).
func (n *notifier) dial(ctx context.Context, addr string) (*remoting.Client, error) {
	opts := remoting.ClientOptions{Logger: n.logger}
	if n.tls != nil {
		opts.TLS = n.tls()
	}
	return remoting.Dial(ctx, addr, opts)
}

func (n *notifier) finish(addr string, d *delivery) {
	n.mu.Lock()
	defer n.mu.Unlock()
	d.cancel()
	if n.inflight[addr] == d {
		delete(n.inflight, addr)
	}
	n.startPendingLocked()
}

// wait refuses new deliveries, blocks until every delivery has ended
// (cancel the context passed to newNotifier first to cut them short), then
// closes the pooled connections.
func (n *notifier) wait() {
	n.mu.Lock()
	n.closed = true
	n.pending, n.order = map[string]roleChangeNotifyEntry{}, nil
	n.mu.Unlock()
	n.stopPool()
	n.wg.Wait()
	n.pool.closeAll()
}
