package route

import (
	"slices"
	"strings"
	"sync/atomic"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// syncBrokerMemberPrefix marks topics the acting-master rewrite skips
// (TopicValidator.SYNC_BROKER_MEMBER_GROUP_PREFIX).
const syncBrokerMemberPrefix = "rmq_sys_SYNC_BROKER_MEMBER_"

// emptyFilters is the shared FilterServerTable of routes without filter
// servers. Published data is immutable, so sharing it is safe.
var emptyFilters = map[string][]string{}

// TopicSnapshot is an immutable, published route. Topics with equal
// routes (the same queue data on the same broker groups, see internState)
// publish one shared snapshot, so it names no topic; a topic with
// static-topic mappings or more than keyQueues queue data has its own. A
// change to a topic moves it to another snapshot; a snapshot no topic
// publishes any more is retired, so the bodies a BodyCache stored in its
// slots are dropped (and uncounted) with it.
type TopicSnapshot struct {
	// Route is pickupTopicRouteData without the acting-master rewrite and
	// without orderTopicConf (the processor adds it when enabled).
	Route *wire.TopicRouteData
	// ActingMaster is the acting-master rewrite (docs/protocol.md section 4.6
	// step 6), or nil if it would not change anything. Use it only when
	// supportActingMaster is on (see RouteFor).
	ActingMaster *wire.TopicRouteData
	bodies       [BodySlots]atomic.Pointer[cachedBody] // see BodyCache
	intern       internState                           // coordinator only
}

// RouteFor returns the route to answer with: the acting-master view when
// supportActingMaster is on and the rewrite applies, else Route.
func (s *TopicSnapshot) RouteFor(supportActingMaster bool) *wire.TopicRouteData {
	if supportActingMaster && s.ActingMaster != nil {
		return s.ActingMaster
	}
	return s.Route
}

// snapAlloc puts a snapshot and its route in one allocation.
type snapAlloc struct {
	snap  TopicSnapshot
	route wire.TopicRouteData
}

// Lookup returns the published route snapshot of topic, or nil when the topic
// does not exist or none of its brokers has BrokerData (docs/protocol.md
// section 4.6: the processor answers TOPIC_NOT_EXIST). It takes no lock.
func (m *Manager) Lookup(topic string) *TopicSnapshot {
	if e := m.pub.get(topic); e != nil {
		return e.snap.Load()
	}
	return nil
}

// buildSnapshot assembles a new snapshot of a topic's route from the
// source tables (docs/protocol.md section 4.6). Called by the coordinator
// only.
func (m *Manager) buildSnapshot(e *topicEntry) *TopicSnapshot {
	r, ok := m.routeBrokers(brokerOrder(e.queues, e.queueBuckets()))
	if !ok {
		return nil
	}
	a := &snapAlloc{}
	a.route = wire.TopicRouteData{
		QueueDatas:                e.queues,
		BrokerDatas:               r.brokers,
		FilterServerTable:         r.filters,
		TopicQueueMappingByBroker: m.mappings[e.name],
	}
	a.snap.Route = &a.route
	a.snap.ActingMaster = actingMasterView(e.name, &a.route)
	return &a.snap
}

// filterView maps every broker address of the route to its filter
// servers, looked up by (BrokerData.cluster, addr) as Java does. Java puts
// the lookup of every address, null for one without filter servers (the
// encoder leaves out a nil list as fastjson leaves out a null value), so
// a later group of another cluster on the same address erases the list
// of an earlier one.
func (m *Manager) filterView(bds []wire.BrokerData) map[string][]string {
	if len(m.filters) == 0 {
		return emptyFilters
	}
	var out map[string][]string
	for _, bd := range bds {
		for _, addr := range bd.BrokerAddrs {
			if out == nil {
				out = map[string][]string{}
			}
			out[addr] = m.filters[addrKey{bd.Cluster, addr}]
		}
	}
	for _, l := range out {
		if l != nil {
			return out
		}
	}
	return emptyFilters
}

// actingMasterView applies docs/protocol.md section 4.6 step 6 to a copy: for a
// broker group with enableActingMaster, addresses but no master, and a
// read-only queue, the lowest-id address moves to id 0. Nil if no group
// qualifies.
func actingMasterView(topic string, r *wire.TopicRouteData) *wire.TopicRouteData {
	if strings.HasPrefix(topic, syncBrokerMemberPrefix) {
		return nil
	}
	var out []wire.BrokerData
	for i, bd := range r.BrokerDatas {
		if !needsActingMaster(bd, r.QueueDatas) {
			continue
		}
		if out == nil {
			out = slices.Clone(r.BrokerDatas)
		}
		out[i].BrokerAddrs, out[i].AddrOrder = promoteMinID(bd.BrokerAddrs, bd.AddrOrder)
	}
	if out == nil {
		return nil
	}
	cp := *r
	cp.BrokerDatas = out
	return &cp
}

func needsActingMaster(bd wire.BrokerData, qds []wire.QueueData) bool {
	if len(bd.BrokerAddrs) == 0 || !bd.EnableActingMaster {
		return false
	}
	if _, ok := bd.BrokerAddrs[wire.MasterID]; ok {
		return false
	}
	for _, q := range qds {
		if q.BrokerName == bd.BrokerName {
			return q.Perm&wire.PermWrite == 0
		}
	}
	return false
}

// promoteMinID moves the address of the lowest id to id 0, as Java does
// on the route's copy of the map (remove, then put, which appends id 0
// to its bucket): the order is the copy's without the lowest id, then 0.
func promoteMinID(addrs map[int64]string, order []int64) (map[int64]string, []int64) {
	minID, _ := minBrokerID(addrs)
	out := make(map[int64]string, len(addrs))
	for id, a := range addrs {
		if id != minID {
			out[id] = a
		}
	}
	out[wire.MasterID] = addrs[minID]
	if order == nil {
		return out, nil
	}
	moved := slices.DeleteFunc(wire.CopyOrder(order), func(id int64) bool { return id == minID })
	return out, append(moved, wire.MasterID)
}

// minBrokerID returns the smallest broker id of addrs; ok is false when empty.
func minBrokerID(addrs map[int64]string) (minID int64, ok bool) {
	for id := range addrs {
		if !ok || id < minID {
			minID, ok = id, true
		}
	}
	return minID, ok
}

// shareMax is the largest number of broker groups a route may have for its
// BrokerData list to be shared with other topics.
const shareMax = 8

// shareCap bounds the number of shared lists kept between resets.
const shareCap = 1 << 14

// shareKey identifies a BrokerData list by the identity of the published
// BrokerData of each group, in queue order. A group's published copy is
// replaced whenever its data changes, which gives a new key.
type shareKey [shareMax]*wire.BrokerData

// sharedRoute is the part of a TopicRouteData that depends only on the
// broker groups: topics on the same groups share it (published data is
// immutable), which saves an allocation and about 72 bytes per group per
// topic.
type sharedRoute struct {
	brokers []wire.BrokerData
	filters map[string][]string
}

// shareTable holds the shared lists. Only the coordinator uses it. The keys
// keep their BrokerData alive, so an address is never reused while keyed.
type shareTable struct {
	m map[shareKey]sharedRoute
}

// reset drops every shared list (existing snapshots keep theirs). The
// coordinator calls it whenever a group's BrokerData or filters change.
func (s *shareTable) reset() { s.m = nil }

func (s *shareTable) put(k shareKey, r sharedRoute) {
	if s.m == nil || len(s.m) >= shareCap {
		s.m = make(map[shareKey]sharedRoute)
	}
	s.m[k] = r
}

// routeBrokers returns the BrokerData list (in queue order, groups without
// BrokerData skipped) and filter view of a route over qs, shared with the
// other topics on the same groups; ok is false when no group has
// BrokerData.
func (m *Manager) routeBrokers(qs []wire.QueueData) (r sharedRoute, ok bool) {
	if len(qs) > shareMax {
		return m.newSharedRoute(m.publishedOf(qs, nil))
	}
	var k shareKey
	n := 0
	for _, q := range qs {
		if b := m.brokers[q.BrokerName]; b != nil {
			k[n] = b.published()
			n++
		}
	}
	if r, ok = m.shared.m[k]; ok || n == 0 {
		return r, ok
	}
	r, ok = m.newSharedRoute(k[:n])
	m.shared.put(k, r)
	return r, ok
}

// publishedOf appends the published BrokerData of the groups of qs that
// have one.
func (m *Manager) publishedOf(qs []wire.QueueData, dst []*wire.BrokerData) []*wire.BrokerData {
	for _, q := range qs {
		if b := m.brokers[q.BrokerName]; b != nil {
			dst = append(dst, b.published())
		}
	}
	return dst
}

// newSharedRoute copies pubs into a new list and builds its filter view.
func (m *Manager) newSharedRoute(pubs []*wire.BrokerData) (sharedRoute, bool) {
	if len(pubs) == 0 {
		return sharedRoute{}, false
	}
	bds := make([]wire.BrokerData, len(pubs))
	for i, p := range pubs {
		bds[i] = *p
	}
	return sharedRoute{brokers: bds, filters: m.filterView(bds)}, true
}
