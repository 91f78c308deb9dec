//go:build embedded_controller

package liveness

import (
	"fmt"
	"time"

	"github.com/rmqgo/nameserver/internal/monotime"
)

// Bounds of the heartbeat table (ours: Java's DefaultBrokerHeartbeatManager
// keeps an entry for any broker identity anyone beats for). A real broker
// beats for itself on its own connection, one entry per connection.
const (
	// MaxEntriesPerConn bounds the brokers one connection may beat
	// for at a time.
	MaxEntriesPerConn = 64
	// MaxEntries bounds the whole table.
	MaxEntries = 100_000
)

// connBeat is one connection's beat of an entry's liveness: its last
// heartbeat (monotonic) and the timeout that heartbeat announced.
type connBeat struct {
	last    monotime.Mono
	timeout time.Duration
}

// alive reports now-last <= timeout (Java's rule, on the monotonic clock;
// the timeout is capped, so no overflow).
func (b connBeat) alive(now monotime.Mono) bool { return now.Sub(b.last) <= b.timeout }

// hbEntry is one broker's row: the state of its latest heartbeat and the
// beat each connection that beat for it contributes to its liveness. The
// first connection's beat is held inline (one connection per broker is the
// usual case: the heartbeat scan then walks no map per entry); any other
// connection's goes to more.
type hbEntry struct {
	info  Info
	conn  ConnID   // the inline beat's connection, when has
	beat  connBeat // the inline beat
	has   bool
	beats int                 // has + len(more)
	more  map[ConnID]connBeat // nil until a second connection beats
}

// beatOf returns conn's beat.
func (e *hbEntry) beatOf(conn ConnID) (connBeat, bool) {
	if e.has && e.conn == conn {
		return e.beat, true
	}
	b, ok := e.more[conn]
	return b, ok
}

// setBeat records conn's beat.
func (e *hbEntry) setBeat(conn ConnID, b connBeat) {
	if e.has && e.conn == conn {
		e.beat = b
		return
	}
	if _, ok := e.more[conn]; ok {
		e.more[conn] = b
		return
	}
	e.beats++
	if !e.has {
		e.conn, e.beat, e.has = conn, b, true
		return
	}
	if e.more == nil {
		e.more = map[ConnID]connBeat{}
	}
	e.more[conn] = b
}

// dropBeat removes conn's beat; it reports whether there was one.
func (e *hbEntry) dropBeat(conn ConnID) bool {
	if e.has && e.conn == conn {
		e.has, e.beat, e.conn = false, connBeat{}, 0
	} else if _, ok := e.more[conn]; ok {
		delete(e.more, conn)
	} else {
		return false
	}
	e.beats--
	if len(e.more) == 0 {
		e.more = nil
	}
	return true
}

// dropDead removes every beat whose heartbeat timed out, unbinding it.
// Callers hold m.mu.
func (e *hbEntry) dropDead(m *Table, key Identity, now monotime.Mono) {
	if e.has && !e.beat.alive(now) {
		m.unbind(e.conn, key)
		e.dropBeat(e.conn)
	}
	for conn, b := range e.more {
		if !b.alive(now) {
			m.unbind(conn, key)
			e.dropBeat(conn)
		}
	}
}

func (e *hbEntry) alive(now monotime.Mono) bool {
	if e.has && e.beat.alive(now) {
		return true
	}
	for _, b := range e.more {
		if b.alive(now) {
			return true
		}
	}
	return false
}

// admit returns the entry for a heartbeat of key on conn, creating it,
// or refuses it when conn already beats for MaxEntriesPerConn
// other brokers or the table holds MaxEntries. Callers hold mu.
func (m *Table) admit(key Identity, conn ConnID) (*hbEntry, error) {
	e, ok := m.live[key]
	if ok {
		if _, known := e.beatOf(conn); known {
			return e, nil
		}
	}
	if conn != 0 && len(m.byConn[conn]) >= MaxEntriesPerConn {
		return nil, &refusal{remark: fmt.Sprintf(
			"one connection may beat for at most %d brokers", MaxEntriesPerConn)}
	}
	if ok {
		return e, nil
	}
	if len(m.live) >= MaxEntries {
		return nil, &refusal{remark: fmt.Sprintf(
			"the heartbeat table is full (%d brokers)", MaxEntries)}
	}
	e = &hbEntry{}
	m.live[key] = e
	return e, nil
}

// bind and unbind keep byConn in step with the entries' beats. Callers
// hold mu.
func (m *Table) bind(conn ConnID, key Identity) {
	set, ok := m.byConn[conn]
	if !ok {
		set = map[Identity]struct{}{}
		m.byConn[conn] = set
	}
	set[key] = struct{}{}
}

func (m *Table) unbind(conn ConnID, key Identity) {
	set := m.byConn[conn]
	delete(set, key)
	if len(set) == 0 {
		delete(m.byConn, conn)
	}
}

// Scan drops every connection's beat whose heartbeat timed out (now - last
// > timeout), removes the entries left with none, reports them (sorted by
// identity) to OnInactive and returns them.
func (m *Table) Scan() []Inactive {
	now := m.Now()
	m.mu.Lock()
	var events []Inactive
	for key, e := range m.live {
		e.dropDead(m, key, now)
		if e.beats == 0 {
			delete(m.live, key)
			events = append(events, inactiveEvent(&e.info, ReasonTimeout))
		}
	}
	m.mu.Unlock()
	SortEvents(events)
	for _, ev := range events {
		m.opts.Logger.Warn("broker heartbeat expired", "broker", ev.Identity, "addr", ev.BrokerAddr)
		if m.opts.CloseConn != nil && ev.Conn != 0 {
			m.opts.CloseConn(ev.Conn)
		}
	}
	m.notify(events)
	return events
}

// OnConnClose handles a closed, failed or idle connection: it drops that
// connection's beat of every entry it beat for; the entries left with no
// connection are removed and reported. A broker that still beats on
// another connection keeps its entry.
func (m *Table) OnConnClose(conn ConnID) []Inactive {
	if conn == 0 {
		return nil
	}
	m.mu.Lock()
	var events []Inactive
	for key := range m.byConn[conn] {
		e, ok := m.live[key]
		if !ok {
			continue
		}
		e.dropBeat(conn)
		if e.beats == 0 {
			delete(m.live, key)
			ev := inactiveEvent(&e.info, ReasonConnClosed)
			ev.Conn = conn
			events = append(events, ev)
		}
	}
	delete(m.byConn, conn)
	m.mu.Unlock()
	SortEvents(events)
	for _, ev := range events {
		m.opts.Logger.Info("broker connection closed", "broker", ev.Identity, "addr", ev.BrokerAddr)
	}
	m.notify(events)
	return events
}

// Size is the number of entries plus the connections bound to them.
func (m *Table) Size() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.live) + len(m.byConn)
}

// Entries is the number of brokers in the table.
func (m *Table) Entries() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.live)
}

// ConnCount is the number of connections whose heartbeat keeps broker
// clusterName/brokerName/id alive (0 when it is not in the table).
func (m *Table) ConnCount(clusterName, brokerName string, id int64) int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if e, ok := m.live[Identity{clusterName, brokerName, id}]; ok {
		return e.beats
	}
	return 0
}
