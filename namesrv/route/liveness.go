package route

import (
	"slices"
	"sync"
	"time"

	"github.com/rmqgo/nameserver/internal/monotime"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

// liveEntry is one row of brokerLiveTable (BrokerLiveInfo). key, name,
// dv, dvNull, ha, ch and gen change only under the coordinator and the
// live lock;
// last, deadline and idx only under the live lock.
type liveEntry struct {
	key      addrKey
	name     string // brokerName of the registration that created it
	id       int64  // brokerId of the last registration
	dv       wire.DataVersion
	dvNull   bool // Java's DataVersion is null (RegisterBody.DataVersionNull)
	ha       string
	ch       wire.Channel
	gen      uint64 // session generation, new on every registration
	timeout  time.Duration
	last     monotime.Mono // the last refresh, on the monotonic clock
	deadline monotime.Mono // last + timeout
	idx      int           // position in the expiry heap, -1 when not in it
	memo     bodyMemo      // the body last applied (coordinator only)
}

// liveTable is brokerLiveTable with a channel index and an expiry
// min-heap keyed by deadline, under its own lock so heartbeats never wait
// for the coordinator.
type liveTable struct {
	mu     sync.Mutex
	m      map[addrKey]*liveEntry
	byChan map[wire.Channel][]*liveEntry
	byAddr map[string]int // address -> its live entries (one per cluster); changes under the coordinator
	// connAddrs and addrConns: the open connections' registered addresses
	// (connaddrs.go); they change under l.mu and the coordinator's lock
	// (read or write), so the coordinator's write lock reads them alone.
	connAddrs map[wire.Channel]map[string]struct{}
	addrConns map[string]int
	heap      expiryHeap
	gen       uint64
}

func (l *liveTable) init() {
	l.m = map[addrKey]*liveEntry{}
	l.byChan = map[wire.Channel][]*liveEntry{}
	l.byAddr = map[string]int{}
	l.connAddrs = map[wire.Channel]map[string]struct{}{}
	l.addrConns = map[string]int{}
}

func (l *liveTable) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}

// genOf returns the generation of the live entry of k, 0 when absent.
func (l *liveTable) genOf(k addrKey) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.m[k]; e != nil {
		return e.gen
	}
	return 0
}

// touch refreshes the entry's timestamp and its heap position.
func (l *liveTable) touch(e *liveEntry, now monotime.Mono) {
	e.last, e.deadline = now, now.Add(e.timeout)
	if e.idx >= 0 {
		l.heap.fix(e)
	} else {
		l.heap.push(e)
	}
}

func (l *liveTable) bind(e *liveEntry, ch wire.Channel) {
	if e.ch == ch {
		return
	}
	if e.ch != nil {
		l.byChan[e.ch] = slices.DeleteFunc(l.byChan[e.ch], func(x *liveEntry) bool { return x == e })
		if len(l.byChan[e.ch]) == 0 {
			delete(l.byChan, e.ch)
		}
	}
	e.ch = ch
	if ch != nil {
		l.byChan[ch] = append(l.byChan[ch], e)
	}
}

// put creates or replaces the live entry of a registration (docs/protocol.md
// section 4.2 step 11) with a new generation; dvNull stores Java's null
// DataVersion (dv is then zero). Caller holds the coordinator.
func (l *liveTable) put(k addrKey, req wire.RegisterRequest, dv wire.DataVersion, dvNull bool, now monotime.Mono) *liveEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.m[k]
	if e == nil {
		e = &liveEntry{key: k, idx: -1}
		l.m[k] = e
		l.byAddr[k.addr]++
	}
	l.bind(e, req.Channel)
	l.gen++
	e.name, e.id, e.dv, e.dvNull, e.ha, e.gen = req.BrokerName, req.BrokerID, dv, dvNull, req.HAServerAddr, l.gen
	switch ms := req.HeartbeatTimeoutMillis; {
	case ms > 0: // capped before ×1e6: no overflow
		e.timeout = time.Duration(min(ms, MaxBrokerTimeout.Milliseconds())) * time.Millisecond
	case ms < 0: // HeartbeatTimeoutNone
		e.timeout = 0
	default:
		e.timeout = DefaultBrokerTimeout
	}
	l.touch(e, now)
	return e
}

// remove drops the live entry of k. Caller holds the coordinator.
func (l *liveTable) remove(k addrKey) *liveEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.m[k]
	if e == nil {
		return nil
	}
	delete(l.m, k)
	if l.byAddr[k.addr]--; l.byAddr[k.addr] <= 0 {
		delete(l.byAddr, k.addr)
	}
	l.bind(e, nil)
	if e.idx >= 0 {
		l.heap.remove(e.idx)
	}
	return e
}

// expired is what the scan captured of an expired entry.
type expired struct {
	key  addrKey
	name string
	id   int64
	ch   wire.Channel
	gen  uint64
}

// popExpired takes every entry with deadline < now off the heap, visiting
// only those (plus one). Caller holds the coordinator's read lock.
// The connections of expired entries, which the scan closes, are
// untracked; swept gets the addresses left with neither a live entry nor
// an open connection.
func (l *liveTable) popExpired(now monotime.Mono, visits *uint64, swept *[]string) []expired {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.heap.countBefore(now)
	if n == 0 {
		return nil
	}
	out := make([]expired, 0, n)
	for e := l.heap.popBefore(now); e != nil; e = l.heap.popBefore(now) {
		*visits++
		out = append(out, expired{key: e.key, name: e.name, id: e.id, ch: e.ch, gen: e.gen})
		if e.ch != nil {
			*swept = append(*swept, l.untrackLocked(e.ch)...)
		}
	}
	return out
}

// requeue puts an expired entry back on the heap when its unregistration
// could not be queued, so the next scan retries (as Java's full scan does).
func (l *liveTable) requeue(x expired) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.m[x.key]; e != nil && e.gen == x.gen && e.idx < 0 {
		l.heap.push(e)
	}
}

// Heartbeat refreshes the timestamp of an existing live entry
// (BROKER_HEARTBEAT); unknown brokers are ignored.
func (m *Manager) Heartbeat(cluster, addr string) {
	l := &m.live
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.m[addrKey{cluster, addr}]; e != nil {
		l.touch(e, m.opts.Clock.Mono())
	}
}

// QueryDataVersion answers QUERY_DATA_VERSION: changed is computed before
// the live entry's timestamp is refreshed (a nil dv, no version or one
// without timestamp, is always changed, and so is any against a null
// stored version); stored is nil without an entry or with a null version.
func (m *Manager) QueryDataVersion(cluster, addr string, dv *wire.DataVersion) (changed bool, stored *wire.DataVersion) {
	l := &m.live
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.m[addrKey{cluster, addr}]
	if e == nil {
		return true, nil
	}
	changed = dv == nil || e.dvNull || *dv != e.dv
	l.touch(e, m.opts.Clock.Mono())
	if e.dvNull {
		return changed, nil
	}
	cp := e.dv
	return changed, &cp
}

// ScanExpired closes the channel of every live entry whose last refresh plus
// timeout is before now (a reading of the Manager's monotonic clock, so a
// wall-clock step changes nothing) and queues its unregistration
// (docs/protocol.md section 4.3). The entries stay live until the
// unregistration is applied. It returns the number of expired entries.
func (m *Manager) ScanExpired(now monotime.Mono) int {
	m.mu.RLock()
	var visits uint64
	var swept []string
	xs := m.live.popExpired(now, &visits, &swept)
	reqs := make([]unregReq, len(xs))
	for i, x := range xs {
		reqs[i] = m.unregFor(x)
	}
	m.mu.RUnlock()
	m.counts.expiryVisits.Add(visits)
	m.counts.expiries.Add(uint64(len(xs)))
	for i, x := range xs {
		if x.ch != nil {
			_ = x.ch.Close()
		}
		if m.log.IsWarn() { // skips boxing the arguments when disabled
			m.log.Warn("broker channel expired", "cluster", x.key.cluster, "addr", x.key.addr)
		}
		if !m.enqueue(reqs[i]) {
			m.live.requeue(x)
		}
	}
	m.sweepClosed(swept)
	return len(xs)
}

// OnChannelClose queues the unregistration of every broker whose live entry
// is bound to ch (channel close, exception or idle, docs/protocol.md section
// 4.5), and sweeps from every group each address registered over ch that
// is left with neither a live entry nor an open connection (section 4.4).
func (m *Manager) OnChannelClose(ch wire.Channel) {
	if ch == nil {
		return
	}
	m.mu.RLock()
	m.live.mu.Lock()
	var reqs []unregReq
	for _, e := range m.live.byChan[ch] {
		reqs = append(reqs, m.unregFor(expired{key: e.key, name: e.name, id: e.id, ch: ch, gen: e.gen}))
	}
	swept := m.live.untrackLocked(ch)
	m.live.mu.Unlock()
	m.mu.RUnlock()
	m.sweepClosed(swept)
	for _, r := range reqs {
		ok := m.enqueue(r)
		m.log.Info("broker channel destroyed", "cluster", r.ClusterName, "addr", r.BrokerAddr,
			"broker", r.BrokerName, "queued", ok)
	}
}
