//go:build embedded_controller

package controller

import "fmt"

// Bounds of the heartbeat table (ours: Java's DefaultBrokerHeartbeatManager
// keeps an entry for any broker identity anyone beats for). A real broker
// beats for itself on its own connection, one entry per connection.
const (
	// MaxHeartbeatEntriesPerConn bounds the brokers one connection may beat
	// for at a time.
	MaxHeartbeatEntriesPerConn = 64
	// MaxHeartbeatEntries bounds the whole table.
	MaxHeartbeatEntries = 100_000
)

// connBeat is one connection's part of an entry's liveness: its last
// heartbeat and the timeout that heartbeat announced.
type connBeat struct {
	lastMillis    int64
	timeoutMillis int64
}

func (b connBeat) alive(now int64) bool { return now-b.lastMillis <= b.timeoutMillis } // no overflow

// hbEntry is one broker's row: the state of its latest heartbeat and the
// part each connection that beat for it contributes to its liveness.
type hbEntry struct {
	info  LiveInfo
	beats map[ConnID]connBeat
}

func (e *hbEntry) alive(now int64) bool {
	for _, b := range e.beats {
		if b.alive(now) {
			return true
		}
	}
	return false
}

// admit returns the entry for a heartbeat of key on conn, creating it,
// or refuses it when conn already beats for MaxHeartbeatEntriesPerConn
// other brokers or the table holds MaxHeartbeatEntries. Callers hold mu.
func (m *HeartbeatManager) admit(key BrokerIdentity, conn ConnID) (*hbEntry, error) {
	e, ok := m.live[key]
	if ok {
		if _, known := e.beats[conn]; known {
			return e, nil
		}
	}
	if conn != 0 && len(m.byConn[conn]) >= MaxHeartbeatEntriesPerConn {
		return nil, &Error{Kind: ErrInvalidRequest, Remark: fmt.Sprintf(
			"one connection may beat for at most %d brokers", MaxHeartbeatEntriesPerConn)}
	}
	if ok {
		return e, nil
	}
	if len(m.live) >= MaxHeartbeatEntries {
		return nil, &Error{Kind: ErrInvalidRequest, Remark: fmt.Sprintf(
			"the heartbeat table is full (%d brokers)", MaxHeartbeatEntries)}
	}
	e = &hbEntry{beats: map[ConnID]connBeat{}}
	m.live[key] = e
	return e, nil
}

// bind and unbind keep byConn in step with the entries' beats. Callers
// hold mu.
func (m *HeartbeatManager) bind(conn ConnID, key BrokerIdentity) {
	set, ok := m.byConn[conn]
	if !ok {
		set = map[BrokerIdentity]struct{}{}
		m.byConn[conn] = set
	}
	set[key] = struct{}{}
}

func (m *HeartbeatManager) unbind(conn ConnID, key BrokerIdentity) {
	set := m.byConn[conn]
	delete(set, key)
	if len(set) == 0 {
		delete(m.byConn, conn)
	}
}

// Scan drops every connection's part whose heartbeat timed out (now - last
// > timeout), removes the entries left with none, reports them (sorted by
// identity) to OnInactive and returns them.
func (m *HeartbeatManager) Scan() []InactiveEvent {
	now := m.now()
	m.mu.Lock()
	var events []InactiveEvent
	for key, e := range m.live {
		for conn, b := range e.beats {
			if !b.alive(now) {
				delete(e.beats, conn)
				m.unbind(conn, key)
			}
		}
		if len(e.beats) == 0 {
			delete(m.live, key)
			events = append(events, inactiveEvent(&e.info, ReasonTimeout))
		}
	}
	m.mu.Unlock()
	sortEvents(events)
	for _, ev := range events {
		m.opts.Logger.Warn("broker heartbeat expired", "broker", ev.BrokerIdentity, "addr", ev.BrokerAddr)
		if m.opts.CloseConn != nil && ev.Conn != 0 {
			m.opts.CloseConn(ev.Conn)
		}
	}
	m.notify(events)
	return events
}

// OnConnClose handles a closed, failed or idle connection: it drops that
// connection's part of every entry it beat for; the entries left with no
// connection are removed and reported. A broker that still beats on
// another connection keeps its entry.
func (m *HeartbeatManager) OnConnClose(conn ConnID) []InactiveEvent {
	if conn == 0 {
		return nil
	}
	m.mu.Lock()
	var events []InactiveEvent
	for key := range m.byConn[conn] {
		e, ok := m.live[key]
		if !ok {
			continue
		}
		delete(e.beats, conn)
		if len(e.beats) == 0 {
			delete(m.live, key)
			ev := inactiveEvent(&e.info, ReasonConnClosed)
			ev.Conn = conn
			events = append(events, ev)
		}
	}
	delete(m.byConn, conn)
	m.mu.Unlock()
	sortEvents(events)
	for _, ev := range events {
		m.opts.Logger.Info("broker connection closed", "broker", ev.BrokerIdentity, "addr", ev.BrokerAddr)
	}
	m.notify(events)
	return events
}
