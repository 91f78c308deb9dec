package brokerflow

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/rmqgo/nameserver/remoting"
)

// Notice is one NOTIFY_BROKER_ROLE_CHANGED (1008) received on the broker's
// port: header masterAddress, masterEpoch, syncStateSetEpoch,
// masterBrokerId; body the sync-state set.
type Notice struct {
	Req *remoting.Command
	At  time.Time // arrival
}

// noticeLog is an append-only record of notices that readers can wait on.
type noticeLog struct {
	mu      sync.Mutex
	items   []Notice
	changed chan struct{} // closed and replaced on every add
}

func (l *noticeLog) init() { l.changed = make(chan struct{}) }

// add appends n and wakes every waiter.
func (l *noticeLog) add(n Notice) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append(l.items, n)
	close(l.changed)
	l.changed = make(chan struct{})
}

// snapshot returns a copy of the notices so far.
func (l *noticeLog) snapshot() []Notice {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.items)
}

// find returns the first notice matching pred, or the channel closed on
// the next add.
func (l *noticeLog) find(pred func(Notice) bool) (Notice, bool, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.items {
		if pred(n) {
			return n, true, nil
		}
	}
	return Notice{}, false, l.changed
}

// wait returns the first notice matching pred, waiting until ctx ends.
func (l *noticeLog) wait(ctx context.Context, pred func(Notice) bool) (Notice, error) {
	for {
		n, ok, changed := l.find(pred)
		if ok {
			return n, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Notice{}, ctx.Err()
		}
	}
}
