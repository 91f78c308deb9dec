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

	mu       sync.Mutex
	inflight map[string]*delivery
	closed   bool
	wg       sync.WaitGroup

	// Lines a stranger can cause (its own sets' members, at addresses of
	// its choosing): one a second each, counting the rest.
	failedLogs, sentLogs, droppedLogs lograte.Limiter
}

// maxNotifyInflight bounds the deliveries in flight (each holds a
// goroutine and a file descriptor for up to notifyTimeout): a stranger that
// heartbeats for its own sets' members and elects in turn made the
// controller dial one address of its choosing per member at once. A
// notification over the bound is dropped; the broker learns its role at
// its next metadata sync with the controller, as after a lost one.
const maxNotifyInflight = 256

type delivery struct {
	epoch  int32
	cancel context.CancelFunc
}

func newNotifier(ctx context.Context, logger hclog.Logger, obs Observer, version int32) *notifier {
	n := &notifier{ctx: ctx, logger: logger.Named("notify"), observer: obs, version: version,
		inflight: map[string]*delivery{}}
	n.failedLogs.Every, n.sentLogs.Every, n.droppedLogs.Every = time.Second, time.Second, time.Second
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
	if d, ok := n.inflight[addr]; ok {
		if d.epoch >= e.MasterEpoch {
			return
		}
		d.cancel()
	} else if len(n.inflight) >= maxNotifyInflight {
		if ok, suppressed := n.droppedLogs.Allow(time.Now()); ok {
			n.logger.Warn("role change notification dropped: too many in flight", "addr", addr,
				"inflight", len(n.inflight), "suppressed", suppressed)
		}
		return
	}
	ctx, cancel := context.WithTimeout(n.ctx, notifyTimeout)
	d := &delivery{epoch: e.MasterEpoch, cancel: cancel}
	n.inflight[addr] = d
	n.wg.Add(1)
	go n.deliver(ctx, addr, e, d)
}

// deliver dials addr, sends the request oneway and closes the connection
// once the frame is flushed.
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

func (n *notifier) sendOneway(ctx context.Context, addr string, e roleChangeNotifyEntry) error {
	opts := remoting.ClientOptions{Logger: n.logger}
	if n.tls != nil {
		opts.TLS = n.tls()
	}
	client, err := remoting.Dial(ctx, addr, opts)
	if err != nil {
		return err
	}
	defer client.Close()
	req := remoting.NewRequest(remoting.NotifyBrokerRoleChanged, e.ExtFields(), e.BodyBytes())
	req.Version = n.version
	return client.InvokeOneway(req)
}

func (n *notifier) finish(addr string, d *delivery) {
	n.mu.Lock()
	defer n.mu.Unlock()
	d.cancel()
	if n.inflight[addr] == d {
		delete(n.inflight, addr)
	}
}

// wait refuses new deliveries and blocks until every delivery has ended
// (cancel the context passed to newNotifier first to cut them short).
func (n *notifier) wait() {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	n.wg.Wait()
}
