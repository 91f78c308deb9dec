package namesrv

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// notifyTimeout bounds one NOTIFY_MIN_BROKER_ID_CHANGE send (Java: 300 ms oneway).
const notifyTimeout = 300 * time.Millisecond

// notifications tracks the background 905 sends, so that Shutdown waits
// for them and none starts once it began.
type notifications struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
	ctx    context.Context // cancelled when Shutdown's context expires first
	cancel context.CancelFunc
}

func (n *notifications) init() { n.ctx, n.cancel = context.WithCancel(context.Background()) }

// add reserves k sends; it fails once closed.
func (n *notifications) add(k int) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return false
	}
	n.wg.Add(k)
	return true
}

// close refuses new sends and waits for those in flight; when ctx ends
// first, it cuts them short and waits at most notifyTimeout more.
func (n *notifications) close(ctx context.Context) error {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	done := make(chan struct{})
	go func() { n.wg.Wait(); close(done) }()
	defer n.cancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	n.cancel()
	select {
	case <-done:
	case <-time.After(notifyTimeout):
	}
	return fmt.Errorf("cut short broker notifications: %w", ctx.Err())
}

// notifyMinBrokerIDChange sends NOTIFY_MIN_BROKER_ID_CHANGE (905) oneway to
// every target broker, each over a short-lived connection, in the
// background; during shutdown it sends nothing.
func (s *Server) notifyMinBrokerIDChange(n wire.MinBrokerIDChange) {
	ext := map[string]string{
		"minBrokerId":   strconv.FormatInt(n.MinBrokerID, 10),
		"minBrokerAddr": n.MinBrokerAddr,
	}
	setIf(ext, "offlineBrokerAddr", n.OfflineBrokerAddr)
	setIf(ext, "haBrokerAddr", n.HABrokerAddr)
	if !s.notes.add(len(n.TargetAddrs)) {
		s.log.Info("broker notification dropped: shutting down", "code", remoting.NotifyMinBrokerIDChange,
			"targets", n.TargetAddrs)
		return
	}
	for _, addr := range n.TargetAddrs {
		req := remoting.NewRequest(remoting.NotifyMinBrokerIDChange, ext, nil)
		go func() {
			defer s.notes.wg.Done()
			s.sendNotify(s.notes.ctx, addr, req)
		}()
	}
}

func (s *Server) sendOneway(ctx context.Context, addr string, req *remoting.Command) {
	ctx, cancel := context.WithTimeout(ctx, notifyTimeout)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{Logger: s.log.Named("notify"), TLS: s.tls.Client()})
	if err != nil {
		s.log.Warn("notify broker failed", "addr", addr, "code", req.Code, "error", err)
		return
	}
	defer c.Close()
	if err := c.InvokeOneway(req); err != nil {
		s.log.Warn("notify broker failed", "addr", addr, "code", req.Code, "error", err)
	}
}
