//go:build embedded_controller

package liveness

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/internal/monotime"
)

// Defaults for absent BROKER_HEARTBEAT header fields
// (DefaultBrokerHeartbeatManager, docs/controller.md section 4.1).
const (
	DefaultTimeoutMillis    int64 = 10000
	defaultElectionPriority int32 = math.MaxInt32
)

// maxHeartbeatTimeoutMillis caps a broker-supplied heartbeatTimeoutMills
// (60 s; Java brokers send BrokerConfig.controllerHeartBeatTimeoutMills,
// 10 s by default). A non-positive value counts as absent (10 s). Java
// takes the value as is, so an int64-sized one overflows
// lastUpdate+timeout there, and one foreign heartbeat could keep a dead
// master alive for as long as it claims.
const maxHeartbeatTimeoutMillis int64 = 60_000

// ErrRefused is the kind of every refused heartbeat: the
// controller answers it 2005 with the refusal's text as the remark.
var ErrRefused = errors.New("heartbeat refused")

// remarkHeartbeatEmptyBrokerID is Java's remark for a heartbeat without
// a broker id.
const remarkHeartbeatEmptyBrokerID = "Heart beat with empty brokerId"

// refusal is a refused heartbeat: its text is the remark answered.
type refusal struct{ remark string }

// Error returns the remark.
func (r *refusal) Error() string { return r.remark }

// Unwrap returns ErrRefused.
func (r *refusal) Unwrap() error { return ErrRefused }

// Reader is what command builders and the elect policy need from the
// heartbeat table. Table implements it; tests may fake it.
type Reader interface {
	IsActive(clusterName, brokerName string, brokerID int64) bool
	LiveInfo(clusterName, brokerName string, brokerID int64) (Info, bool)
}

// ConnID identifies the connection a heartbeat arrived on. 0 means unknown
// (never matched by OnConnClose).
type ConnID uint64

// Clock is the time source of the heartbeat manager (injectable in tests).
// Liveness and the node's warm-up (warmup.go) are decided on its monotonic
// reading, so a wall-clock step changes nothing; its wall reading only
// stamps LastUpdateMillis for display.
type Clock = monotime.Clock

// Identity is the heartbeat key (cluster, broker set, id).
type Identity struct {
	ClusterName string
	BrokerName  string
	BrokerID    int64
}

// Info is the last heartbeat state of one broker on this node.
type Info struct {
	Identity
	BrokerAddr       string
	LastUpdateMillis int64 // wall clock, for display only: no decision reads it
	TimeoutMillis    int64
	Conn             ConnID
	Generation       uint64 // changes whenever the entry is (re)created on a new connection
	Epoch            int32
	MaxOffset        int64
	ConfirmOffset    int64
	ElectionPriority int32
}

// Reason says why a broker was reported inactive.
type Reason int

// Inactive reasons.
const (
	ReasonTimeout Reason = iota + 1
	ReasonConnClosed
)

// Inactive reports a broker removed from the heartbeat table. The
// leader turns it into an election when the broker was the master (the inactive-broker trigger).
type Inactive struct {
	Identity
	BrokerAddr string
	Conn       ConnID
	Generation uint64
	Reason     Reason
}

// Options configure a Table.
type Options struct {
	Clock  Clock        // nil = monotime.System
	Logger hclog.Logger // nil = discard
	// OnInactive, if set, is called (outside the lock) once per scan or
	// close with every inactive event it produced, sorted by identity. It
	// should only enqueue work.
	OnInactive func([]Inactive)
	// CloseConn, if set, is called for the connection of an expired entry
	// (Java closes the channel).
	CloseConn func(ConnID)
}

// Table is the per-node broker live table (DefaultBrokerHeartbeatManager).
// It is never replicated: brokers beat to every controller.
type Table struct {
	mu      sync.RWMutex
	live    map[Identity]*hbEntry
	byConn  map[ConnID]map[Identity]struct{} // the entries each connection beat for
	nextGen uint64
	opts    Options
	serving atomic.Int64 // monotime.Mono since which it serves heartbeats (warmup.go)
}

var _ Reader = (*Table)(nil)

// New returns an empty manager.
func New(opts Options) *Table {
	if opts.Clock == nil {
		opts.Clock = monotime.System
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	opts.Logger = opts.Logger.Named("heartbeat")
	m := &Table{live: map[Identity]*hbEntry{}, byConn: map[ConnID]map[Identity]struct{}{},
		opts: opts}
	m.StartServing()
	return m
}

// Now is the monotonic reading every liveness decision uses.
func (m *Table) Now() monotime.Mono { return m.opts.Clock.Mono() }

// wallMillis stamps LastUpdateMillis (display only).
func (m *Table) wallMillis() int64 { return m.opts.Clock.Now().UnixMilli() }

// OnHeartbeat records a BROKER_HEARTBEAT received on conn. It fails with
// 2005 when the broker id is absent, or when the table is full for conn
// (see MaxEntriesPerConn and MaxEntries).
//
// Unlike Java's DefaultBrokerHeartbeatManager, which keeps an entry's
// first channel, the entry remembers every connection that beat for it
// and each connection's own deadline: a broker is alive while one of them
// is, and a close removes only that connection's beat (so neither a late
// close of a reconnected broker's old connection, apache/rocketmq#11045,
// nor a foreign connection's close evicts a broker that still beats). The
// entry's state (address, offsets, priority) follows the latest
// heartbeat; one on a different connection than the previous starts a new
// generation. Java also never copies the confirm offset into a new entry;
// we do.
func (m *Table) OnHeartbeat(req wire.BrokerHeartbeatRequest, conn ConnID) error {
	_, err := m.Beat(req, conn)
	return err
}

// Beat is OnHeartbeat that also reports whether conn's beat of the
// entry is new (the connection's first heartbeat for that broker).
func (m *Table) Beat(req wire.BrokerHeartbeatRequest, conn ConnID) (newConn bool, err error) {
	if req.BrokerID == nil {
		return false, &refusal{remark: remarkHeartbeatEmptyBrokerID}
	}
	hb := liveInfoOf(req)
	hb.TimeoutMillis = clampHeartbeatTimeout(hb.TimeoutMillis)
	key := Identity{ClusterName: req.ClusterName, BrokerName: req.BrokerName, BrokerID: *req.BrokerID}
	now := m.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.admit(key, conn)
	if err != nil {
		m.opts.Logger.Debug("broker heartbeat refused", "broker", key, "conn", conn, "error", err)
		return false, err
	}
	m.record(e, key, hb, conn, m.wallMillis())
	if _, known := e.beatOf(conn); !known {
		m.bind(conn, key)
		newConn = true
	}
	e.setBeat(conn, connBeat{last: now, timeout: time.Duration(hb.TimeoutMillis) * time.Millisecond})
	return newConn, nil
}

// record updates the entry's state from one heartbeat; wall stamps
// LastUpdateMillis.
func (m *Table) record(e *hbEntry, key Identity, hb Info, conn ConnID, wall int64) {
	prev := &e.info
	if prev.Generation == 0 || (conn != 0 && conn != prev.Conn) {
		m.nextGen++
		hb.Identity, hb.LastUpdateMillis, hb.Conn, hb.Generation = key, wall, conn, m.nextGen
		e.info = hb
		m.opts.Logger.Debug("broker heartbeat entry created", "broker", key, "addr", hb.BrokerAddr, "conn", conn)
		return
	}
	prev.LastUpdateMillis, prev.TimeoutMillis, prev.ElectionPriority = wall, hb.TimeoutMillis, hb.ElectionPriority
	if hb.Epoch > prev.Epoch || (hb.Epoch == prev.Epoch && hb.MaxOffset > prev.MaxOffset) {
		prev.Epoch, prev.MaxOffset, prev.ConfirmOffset = hb.Epoch, hb.MaxOffset, hb.ConfirmOffset
	}
}

// IsActive reports whether one connection's heartbeat for the broker is
// within its timeout.
func (m *Table) IsActive(clusterName, brokerName string, brokerID int64) bool {
	now := m.Now()
	m.mu.RLock()
	defer m.mu.RUnlock()
	e, ok := m.live[Identity{clusterName, brokerName, brokerID}]
	return ok && e.alive(now)
}

// clampHeartbeatTimeout bounds a broker-supplied timeout to
// [1, maxHeartbeatTimeoutMillis]; non-positive means the default.
func clampHeartbeatTimeout(ms int64) int64 {
	if ms <= 0 {
		return DefaultTimeoutMillis
	}
	return min(ms, maxHeartbeatTimeoutMillis)
}

// LiveInfo returns a copy of the broker's entry (its latest heartbeat).
func (m *Table) LiveInfo(clusterName, brokerName string, brokerID int64) (Info, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	e, ok := m.live[Identity{clusterName, brokerName, brokerID}]
	if !ok {
		return Info{}, false
	}
	return e.info, true
}

// Run scans every interval after initialDelay until ctx is done
// (Java: first after 2000 ms, then every scanNotActiveBrokerInterval).
func (m *Table) Run(ctx context.Context, initialDelay, interval time.Duration) {
	timer := time.NewTimer(initialDelay)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
			m.Scan()
			timer.Reset(interval)
		}
	}
}

func (m *Table) notify(events []Inactive) {
	if m.opts.OnInactive == nil || len(events) == 0 {
		return
	}
	m.opts.OnInactive(events)
}

func inactiveEvent(info *Info, reason Reason) Inactive {
	return Inactive{Identity: info.Identity, BrokerAddr: info.BrokerAddr,
		Conn: info.Conn, Generation: info.Generation, Reason: reason}
}

func SortEvents(events []Inactive) {
	slices.SortFunc(events, func(a, b Inactive) int {
		return cmp.Or(cmp.Compare(a.ClusterName, b.ClusterName), cmp.Compare(a.BrokerName, b.BrokerName),
			cmp.Compare(a.BrokerID, b.BrokerID))
	})
}

// liveInfoOf fills a Info from a 904 request, using Java's defaults for
// absent fields (timeout 10000, epoch/offsets -1, priority MaxInt32).
func liveInfoOf(r wire.BrokerHeartbeatRequest) Info {
	return Info{
		BrokerAddr:       r.BrokerAddr,
		TimeoutMillis:    OrDefault(r.HeartbeatTimeoutMillis, DefaultTimeoutMillis),
		Epoch:            OrDefault(r.Epoch, -1),
		MaxOffset:        OrDefault(r.MaxOffset, -1),
		ConfirmOffset:    OrDefault(r.ConfirmOffset, -1),
		ElectionPriority: OrDefault(r.ElectionPriority, defaultElectionPriority),
	}
}

func OrDefault[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
