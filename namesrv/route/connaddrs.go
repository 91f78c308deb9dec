package route

import (
	"slices"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// A broker address counts as connected while some open connection has
// carried a registration of it. liveTable.connAddrs lists, per open
// connection, the addresses registered over it (bounded by what that
// connection registered, dropped at its close or expiry), and
// liveTable.addrConns counts the open connections of each address. An
// address that has neither a live entry nor an open connection is swept
// from every group (deadaddr.go).

// doneChannel is a Channel that tells when it has closed: remoting.Conn
// closes Done before its close hooks run.
type doneChannel interface{ Done() <-chan struct{} }

// closedChan reports whether ch says it has closed.
func closedChan(ch wire.Channel) bool {
	d, ok := ch.(doneChannel)
	if !ok {
		return false
	}
	select {
	case <-d.Done():
		return true
	default:
		return false
	}
}

// track notes that ch carried a registration of addr, unless ch is nil or
// has closed already (its close handling then ran or runs after this
// under the same lock, and finds the note). Caller holds the coordinator.
// A nil ch returns before the call (inlined on the registration path).
func (l *liveTable) track(ch wire.Channel, addr string) {
	if ch != nil {
		l.trackConn(ch, addr)
	}
}

func (l *liveTable) trackConn(ch wire.Channel, addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if closedChan(ch) {
		return
	}
	as := l.connAddrs[ch]
	if as == nil {
		as = map[string]struct{}{}
		l.connAddrs[ch] = as
	}
	if _, ok := as[addr]; !ok {
		as[addr] = struct{}{}
		l.addrConns[addr]++
	}
}

// untrackLocked forgets ch and returns the addresses registered over it
// that now have neither an open connection nor a live entry. Caller holds
// l.mu and the coordinator's read lock.
func (l *liveTable) untrackLocked(ch wire.Channel) []string {
	as := l.connAddrs[ch]
	if as == nil {
		return nil
	}
	delete(l.connAddrs, ch)
	var out []string
	for a := range as {
		if l.addrConns[a]--; l.addrConns[a] > 0 {
			continue
		}
		delete(l.addrConns, a)
		if l.byAddr[a] == 0 {
			out = append(out, a)
		}
	}
	slices.Sort(out) // swept in one order, whatever the map's
	return out
}

// sweepClosed removes each of addrs that still has neither a live entry
// nor an open connection from every group, with its kept filter servers.
func (m *Manager) sweepClosed(addrs []string) {
	if len(addrs) == 0 {
		return
	}
	m.mutate(func(mut *mutation) {
		ub := newUnregBatch()
		ub.gone = addrs
		mut.finishUnregister(&ub)
	})
}
