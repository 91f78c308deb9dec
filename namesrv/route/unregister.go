package route

import (
	"cmp"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// unregReq is a queued unregistration, fenced by the generation of the
// live entry it targets (0 when there was none).
type unregReq struct {
	wire.UnregisterRequest
	gen uint64
}

// unregQueue is the bounded BatchUnregistrationService queue plus a
// pending count for WaitIdle.
type unregQueue struct {
	ch      chan unregReq
	mu      sync.Mutex
	idle    *sync.Cond
	pending int
	running atomic.Bool
	// beforeApply, when set (tests only), runs in the worker after a batch
	// was taken off the queue and before it is applied.
	beforeApply func()
}

func (q *unregQueue) init(capacity int) {
	q.ch = make(chan unregReq, capacity)
	q.idle = sync.NewCond(&q.mu)
}

func (q *unregQueue) add(n int) {
	q.mu.Lock()
	q.pending += n
	if q.pending == 0 {
		q.idle.Broadcast()
	}
	q.mu.Unlock()
}

// Unregister queues an UNREGISTER_BROKER, fenced by the generation of the
// broker's current live entry. It returns false when the queue is full
// (the processor answers code 1).
func (m *Manager) Unregister(req wire.UnregisterRequest) bool {
	gen := m.live.genOf(addrKey{req.ClusterName, req.BrokerAddr})
	return m.enqueue(unregReq{UnregisterRequest: req, gen: gen})
}

func (m *Manager) enqueue(r unregReq) bool {
	m.unreg.add(1)
	select {
	case m.unreg.ch <- r:
		return true
	default:
		m.unreg.add(-1)
		m.counts.drops.Add(1)
		m.log.Warn("unregister queue full", "cluster", r.ClusterName, "addr", r.BrokerAddr)
		return false
	}
}

// WaitIdle blocks until every queued unregistration has been applied.
// Without a running worker it applies them on the caller.
func (m *Manager) WaitIdle() {
	if !m.unreg.running.Load() {
		m.drainUnregister()
	}
	q := &m.unreg
	q.mu.Lock()
	for q.pending > 0 {
		q.idle.Wait()
	}
	q.mu.Unlock()
}

func (m *Manager) runUnregister() {
	defer m.wg.Done()
	for {
		select {
		case <-m.stop:
			m.drainUnregister()
			return
		case r := <-m.unreg.ch:
			m.applyUnregister(m.collect(r))
		}
	}
}

// collect takes first plus whatever else is queued right now.
func (m *Manager) collect(first unregReq) []unregReq {
	batch := []unregReq{first}
	for len(batch) < cap(m.unreg.ch) {
		select {
		case r := <-m.unreg.ch:
			batch = append(batch, r)
		default:
			return batch
		}
	}
	return batch
}

func (m *Manager) drainUnregister() {
	select {
	case r := <-m.unreg.ch:
		m.applyUnregister(m.collect(r))
	default:
	}
}

func (m *Manager) applyUnregister(batch []unregReq) {
	if hook := m.unreg.beforeApply; hook != nil {
		hook()
	}
	m.mutate(func(mut *mutation) { mut.unregister(batch) })
	m.unreg.add(-len(batch))
}

// unregBatch collects what one batch did to broker groups (docs/protocol.md
// section 4.4), and the addresses whose live entries it removed.
type unregBatch struct {
	removed, reduced map[string]struct{}
	offline          map[string]string // brokerName -> removed addr, when its min id went away
	gone             []string
}

func newUnregBatch() unregBatch {
	return unregBatch{removed: map[string]struct{}{}, reduced: map[string]struct{}{}, offline: map[string]string{}}
}

// unregister applies a batch under the coordinator (unRegisterBroker).
func (mut *mutation) unregister(batch []unregReq) {
	ub := newUnregBatch()
	seen := make(map[unregReq]struct{}, len(batch))
	for _, r := range batch {
		if _, dup := seen[r]; dup {
			continue
		}
		seen[r] = struct{}{}
		mut.unregisterOne(r, &ub)
	}
	mut.finishUnregister(&ub)
}

// finishUnregister drops the addresses left without a live entry from
// every group, then the queues of removed groups, and sends the 905s.
func (mut *mutation) finishUnregister(ub *unregBatch) {
	mut.dropDeadAddrs(ub)
	mut.cleanTopics(ub)
	if mut.settings.NotifyMinBrokerIDChanged {
		mut.notifyOffline(ub.offline)
	}
}

func (mut *mutation) unregisterOne(r unregReq, ub *unregBatch) {
	m := mut.m
	k := addrKey{r.ClusterName, r.BrokerAddr}
	if e := m.live.m[k]; e != nil && e.gen != r.gen {
		m.counts.staleUnregistrations.Add(1)
		m.log.Info("skip stale unregister", "cluster", k.cluster, "addr", k.addr, "gen", r.gen, "live_gen", e.gen)
		if e.name != r.BrokerName {
			mut.dropRenamed(r, ub)
		}
		return
	}
	m.counts.unregistrations.Add(1)
	m.live.remove(k)
	mut.setFilters(k, []string{})
	ub.gone = append(ub.gone, k.addr)
	m.log.Info("unregister broker", "cluster", k.cluster, "addr", k.addr, "broker", r.BrokerName, "id", r.BrokerID)
	b := m.brokers[r.BrokerName]
	if b == nil {
		ub.reduced[r.BrokerName] = struct{}{}
		return
	}
	mut.leaveGroup(b, r.BrokerAddr, r.BrokerID, r.ClusterName, ub)
}

// leaveGroup drops every id of b mapped to addr. A group left without
// addresses is removed, with its membership of cluster ("" = of every
// cluster). id is the unregistered broker id: when it was the group's
// smallest, the group is noted for 905 (Java compares the request's id).
func (mut *mutation) leaveGroup(b *brokerState, addr string, id int64, cluster string, ub *unregBatch) {
	m := mut.m
	minID, ok := b.minID()
	mut.dropAddr(b, addr, nil)
	if len(b.addrs) == 0 {
		delete(m.brokers, b.name)
		mut.markBroker(b.name)
		if cluster != "" {
			mut.leaveCluster(cluster, b.name)
		} else {
			for c := range m.clusters {
				mut.leaveCluster(c, b.name)
			}
		}
		ub.removed[b.name] = struct{}{}
		return
	}
	ub.reduced[b.name] = struct{}{}
	if ok && id == minID {
		ub.offline[b.name] = addr
	}
}

// dropAddr removes every id of b mapped to addr, except keep (may be nil).
// It walks b.order backwards, from the last id to drop on
// (dropAddrFrom): a re-registration, whose id is the only one of its
// address, finds none without a map lookup.
func (mut *mutation) dropAddr(b *brokerState, addr string, keep *int64) bool {
	for i := len(b.order) - 1; i >= 0; i-- {
		if id := b.order[i]; (keep == nil || id != *keep) && b.addrs[id] == addr {
			mut.dropAddrFrom(b, addr, keep, i)
			return true
		}
	}
	return false
}

// dropAddrFrom is dropAddr from b.order[i], an id to drop, down
// (deleteAddr removes the id at i from b.order).
func (mut *mutation) dropAddrFrom(b *brokerState, addr string, keep *int64, i int) {
	for ; i >= 0; i-- {
		if id := b.order[i]; (keep == nil || id != *keep) && b.addrs[id] == addr {
			b.deleteAddr(id)
			mut.m.unuseAddr(addr)
		}
	}
	mut.markBroker(b.name)
}

func (mut *mutation) leaveCluster(cluster, name string) {
	if names := mut.m.clusters[cluster]; names != nil {
		delete(names, name)
		if len(names) == 0 {
			delete(mut.m.clusters, cluster)
		}
	}
}

// cleanTopics drops the queues of removed groups and strips WRITE from the
// queues of reduced acting-master groups left without a master.
func (mut *mutation) cleanTopics(ub *unregBatch) {
	m := mut.m
	for name := range ub.removed {
		for e := range m.byBroker[name].all() {
			mut.removeQueue(e, name)
		}
	}
	for name := range ub.reduced {
		b := m.brokers[name]
		if b == nil || !b.actingMaster || hasMaster(b) {
			continue
		}
		for e := range m.byBroker[name].all() {
			if i, ok := queueIndex(e.queues, name); ok {
				mut.setPerm(e, name, e.queues[i].Perm&^wire.PermWrite)
			}
		}
	}
}

// hasMaster is !isNoMasterExists: some address with id <= 0.
func hasMaster(b *brokerState) bool {
	minID, ok := b.minID()
	return ok && minID <= 0
}

// notifyOffline queues the 905 notifications of groups whose minimum id
// went offline, for acting-master groups only.
func (mut *mutation) notifyOffline(offline map[string]string) {
	names := make([]string, 0, len(offline))
	for name := range offline {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		b := mut.m.brokers[name]
		if b == nil || !b.actingMaster || len(b.addrs) == 0 {
			continue
		}
		n := minIDChange(b.addrs, offline[name], "")
		mut.notes = append(mut.notes, n)
	}
}

// minIDChange builds a 905 for the group addrs (notifyMinBrokerIdChanged
// and chooseBrokerAddrsToNotify): after an unregistration or for a single
// address every member is told, otherwise every member but the new minimum.
func minIDChange(addrs map[int64]string, offline, ha string) wire.MinBrokerIDChange {
	minID, _ := minBrokerID(addrs)
	n := wire.MinBrokerIDChange{MinBrokerID: minID, MinBrokerAddr: addrs[minID], OfflineBrokerAddr: offline, HABrokerAddr: ha}
	ids := make([]int64, 0, len(addrs))
	for id := range addrs {
		if offline != "" || len(addrs) == 1 || id != minID {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, cmp.Compare[int64])
	for _, id := range ids {
		n.TargetAddrs = append(n.TargetAddrs, addrs[id])
	}
	return n
}

// unregFor builds the unregistration of an expired or closed live entry
// (setupUnRegisterRequest): the broker group of the entry's cluster that
// holds its address. When none does, the request only drops the live and
// filter-server entries (Java would leave them forever). Caller holds the
// coordinator.
func (m *Manager) unregFor(x expired) unregReq {
	r := unregReq{UnregisterRequest: wire.UnregisterRequest{ClusterName: x.key.cluster, BrokerAddr: x.key.addr}, gen: x.gen}
	if b := m.brokers[x.name]; b != nil && b.cluster == x.key.cluster {
		// A registration drops the other ids of its address (step 5), so
		// the registered id, when it still maps to the address, is the only one.
		if a, ok := b.addrs[x.id]; ok && a == x.key.addr {
			r.BrokerName, r.BrokerID = b.name, x.id
			return r
		}
		if id, ok := idOf(b.addrs, x.key.addr); ok {
			r.BrokerName, r.BrokerID = b.name, id
			return r
		}
	}
	for _, name := range m.brokersWithAddr(x.key) {
		if r.BrokerName == "" || name < r.BrokerName {
			r.BrokerName = name
		}
	}
	if r.BrokerName != "" {
		r.BrokerID, _ = idOf(m.brokers[r.BrokerName].addrs, x.key.addr)
	}
	return r
}

// idOf returns the smallest id mapped to addr.
func idOf(addrs map[int64]string, addr string) (int64, bool) {
	var best int64
	found := false
	for id, a := range addrs {
		if a == addr && (!found || id < best) {
			best, found = id, true
		}
	}
	return best, found
}
