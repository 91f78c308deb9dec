//go:build embedded_controller

package controller

import (
	"sync"
	"time"

	"github.com/rmqgo/nameserver/internal/monotime"
	"github.com/rmqgo/nameserver/remoting"
)

// notifyResendWindow is how recent a 1008 written on a connection must be,
// when the connection is found dead, to be sent again on a new one. A
// broker that closed the connection before the write shows its close (FIN
// or RST) within a round trip; the window covers that with a wide margin
// and leaves out a broker closing, long after, a connection whose frames
// it read.
const notifyResendWindow = 2 * time.Second

// Bounds of the recent writes (a stranger's members choose the addresses):
// records per address (one per broker set, the newest), addresses (every
// pooled connection and every delivery in flight), bytes in all, and the
// largest frame kept. A write past a bound is not kept: it is not re-sent.
const (
	maxRecentPerAddr   = 4
	maxRecentAddrs     = notifyPoolMax + maxNotifyInflight
	maxRecentBytes     = 1 << 20
	maxRecentFrameSize = 16 << 10
)

// recentNotifies remembers, per broker address, the newest 1008 of each
// broker set written within notifyResendWindow, and on which connection.
// When that connection is found dead, take returns them to send again,
// once: a broker acts on a 1008 only when its master epoch is above the
// broker's own (ReplicasManager.changeBrokerRole, called by
// AdminBrokerProcessor.notifyBrokerRoleChanged in the Java broker), so a
// copy of one it had read changes nothing.
type recentNotifies struct {
	now func() monotime.Mono

	mu     sync.Mutex
	byAddr map[string][]recentNotify
	bytes  int
}

type recentNotify struct {
	set    string // cluster and broker name
	e      roleChangeNotifyEntry
	on     *remoting.Client // the connection written on; nil once re-sent
	at     monotime.Mono
	size   int
	resent bool // this epoch of set was sent again already: not again
}

func newRecentNotifies() *recentNotifies {
	return &recentNotifies{now: monotime.Now, byAddr: map[string][]recentNotify{}}
}

func notifySetKey(e roleChangeNotifyEntry) string {
	return e.Group.Cluster + "\x00" + e.Group.BrokerName
}

// note records e as written to addr on c (before the write: a close seen
// after it finds the record). An older epoch of the set than the one kept
// is not recorded: the newer one supersedes it.
func (r *recentNotifies) note(addr string, c *remoting.Client, e roleChangeNotifyEntry, size int) {
	if size > maxRecentFrameSize {
		return
	}
	e.Group.BrokerAddrs = nil // not part of the 1008
	now := r.now()
	rec := recentNotify{set: notifySetKey(e), e: e, on: c, at: now, size: size}
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.pruneLocked(addr, now)
	for i, old := range list {
		if old.set != rec.set {
			continue
		}
		if old.e.MasterEpoch > e.MasterEpoch {
			return
		}
		rec.resent = old.resent && old.e.MasterEpoch == e.MasterEpoch
		list = r.removeLocked(addr, list, i)
		break
	}
	if !r.roomLocked(addr, list, size, now) {
		return
	}
	if len(list) >= maxRecentPerAddr {
		list = r.removeLocked(addr, list, 0)
	}
	r.byAddr[addr] = append(list, rec)
	r.bytes += size
}

// roomLocked reports whether a record of size for addr fits the bounds,
// forgetting the expired records of every address when it does not.
func (r *recentNotifies) roomLocked(addr string, list []recentNotify, size int, now monotime.Mono) bool {
	fits := func() bool {
		_, known := r.byAddr[addr]
		return (known || len(list) > 0 || len(r.byAddr) < maxRecentAddrs) && r.bytes+size <= maxRecentBytes
	}
	if fits() {
		return true
	}
	for a := range r.byAddr {
		if a != addr {
			r.pruneLocked(a, now)
		}
	}
	return fits()
}

// unnote forgets e's record on c (its write failed: the sender retries).
func (r *recentNotifies) unnote(addr string, c *remoting.Client, e roleChangeNotifyEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.byAddr[addr]
	for i, rec := range list {
		if rec.on == c && rec.set == notifySetKey(e) && rec.e.MasterEpoch == e.MasterEpoch {
			r.removeLocked(addr, list, i)
			return
		}
	}
}

// take returns the 1008s written to addr on c within the window that were
// not sent again yet, marking them sent again; c was found dead.
func (r *recentNotifies) take(addr string, c *remoting.Client) []roleChangeNotifyEntry {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.pruneLocked(addr, now)
	var out []roleChangeNotifyEntry
	for i := range list {
		if list[i].on != c {
			continue
		}
		list[i].on = nil
		if !list[i].resent {
			out = append(out, list[i].e)
			list[i].resent, list[i].at = true, now
		}
	}
	return out
}

// forget drops the records of c (the pool closed it: its frames were
// flushed).
func (r *recentNotifies) forget(addr string, c *remoting.Client) {
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.byAddr[addr]
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].on == c {
			list = r.removeLocked(addr, list, i)
		}
	}
}

// pruneLocked drops addr's records older than the window and returns the
// rest.
func (r *recentNotifies) pruneLocked(addr string, now monotime.Mono) []recentNotify {
	list := r.byAddr[addr]
	for i := len(list) - 1; i >= 0; i-- {
		if now.Sub(list[i].at) > notifyResendWindow {
			list = r.removeLocked(addr, list, i)
		}
	}
	return list
}

// removeLocked removes list[i] (addr's records) and returns the rest.
func (r *recentNotifies) removeLocked(addr string, list []recentNotify, i int) []recentNotify {
	r.bytes -= list[i].size
	list = append(list[:i], list[i+1:]...)
	if len(list) == 0 {
		delete(r.byAddr, addr)
		return nil
	}
	r.byAddr[addr] = list
	return list
}

// counts returns the addresses, records and bytes kept.
func (r *recentNotifies) counts() (addrs, records, bytes int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, list := range r.byAddr {
		records += len(list)
	}
	return len(r.byAddr), records, r.bytes
}
