package route

import (
	"maps"

	"github.com/rmqgo/nameserver/internal/yield"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

// RegisterBroker applies a REGISTER_BROKER (docs/protocol.md section 4.2). It
// returns ErrRegisterFailed for the single-topic guard (step 7), and an empty
// result when the broker id is held by an address with a higher stateVersion
// (step 6). Side effects of the earlier steps remain, as in Java.
func (m *Manager) RegisterBroker(req wire.RegisterRequest) (res wire.RegisterResult, err error) {
	m.counts.registrations.Add(1)
	body := req.Body
	if body == nil {
		body = &wire.RegisterBody{}
	}
	digest := topicsDigestOf(body) // outside the coordinator
	m.mutate(func(mut *mutation) { res, err = mut.register(req, body, digest) })
	if err != nil {
		m.log.Warn("register broker refused: one topic from an unknown id", "cluster", req.ClusterName,
			"broker", req.BrokerName, "id", req.BrokerID, "addr", req.BrokerAddr)
	}
	return res, err
}

func (mut *mutation) register(req wire.RegisterRequest, body *wire.RegisterBody, digest wire.TopicsDigest) (wire.RegisterResult, error) {
	m := mut.m
	k := addrKey{req.ClusterName, req.BrokerAddr}
	m.live.track(req.Channel, req.BrokerAddr)
	mut.joinCluster(req.ClusterName, req.BrokerName) // step 1
	b, registerFirst := mut.brokerFor(req)           // steps 2-3
	prevMin, _ := b.minID()                          // step 4
	minChanged := req.BrokerID < prevMin
	mut.dropAddr(b, req.BrokerAddr, &req.BrokerID) // step 5
	dv := m.versionOf(body)
	switch m.idHeldByNewer(b, req, body, dv) {
	case heldByNewer:
		mut.dropLive(k) // step 6
		m.log.Warn("register broker conflicts with a newer holder of the id, ignored", "cluster", req.ClusterName,
			"broker", req.BrokerName, "id", req.BrokerID, "addr", req.BrokerAddr)
		return wire.RegisterResult{}, nil
	case heldNullVersion:
		m.log.Error("register broker failed: null data version in the id takeover check", "cluster", req.ClusterName,
			"broker", req.BrokerName, "id", req.BrokerID, "addr", req.BrokerAddr)
		return wire.RegisterResult{}, nil
	}
	if _, known := b.addrs[req.BrokerID]; !known && (body.TopicTableNull || len(body.TopicConfigs) == 1) {
		return mut.refuseNew(req, body) // step 7
	}
	old, known := b.addrs[req.BrokerID] // step 8
	if !known || old != req.BrokerAddr {
		mut.setAddr(b, req.BrokerID, req.BrokerAddr)
	}
	registerFirst = registerFirst || old == ""
	isMaster := req.BrokerID == wire.MasterID // step 9
	minNow, _ := b.minID()
	isPrimeSlave := req.EnableActingMaster != nil && !isMaster && req.BrokerID == minNow
	applies := (isMaster || isPrimeSlave) && !body.TopicTableNull
	if applies {
		mut.applyTopics(req, body, b, registerFirst, isPrimeSlave, digest) // step 10
	}
	if _, had := m.live.m[k]; !had {
		m.log.Info("new broker registered", "cluster", k.cluster, "addr", k.addr, "ha", req.HAServerAddr)
	}
	le := m.live.put(k, req, dv, body.DataVersionNull, m.opts.Clock.Mono()) // step 11
	le.memo = bodyMemo{memoDigest(req, body), m.removals, applies}
	mut.setFilters(k, body.FilterServerList) // step 12
	if minChanged && mut.settings.NotifyMinBrokerIDChanged {
		mut.notes = append(mut.notes, minIDChange(b.addrs, "", req.HAServerAddr)) // step 14
	}
	return m.masterOf(b, req), nil // step 13
}

func (mut *mutation) joinCluster(cluster, name string) {
	names := mut.m.clusters[cluster]
	if names == nil {
		names = map[string]struct{}{}
		mut.m.clusters[cluster] = names
	}
	names[name] = struct{}{}
}

// brokerFor returns the broker group, creating it, and applies the
// registrant's zone and enableActingMaster (last registrant wins).
func (mut *mutation) brokerFor(req wire.RegisterRequest) (*brokerState, bool) {
	b := mut.m.brokers[req.BrokerName]
	first := b == nil
	if first {
		b = &brokerState{cluster: req.ClusterName, name: req.BrokerName, addrs: map[int64]string{}}
		mut.m.brokers[req.BrokerName] = b
		mut.markBroker(b.name)
	}
	eam := req.EnableActingMaster != nil && *req.EnableActingMaster
	if b.actingMaster != eam || b.zone != req.ZoneName {
		b.actingMaster, b.zone = eam, req.ZoneName
		mut.markBroker(b.name)
	}
	return b, first
}

// refuseNew is step 7 for an id not yet in the group: a body of one topic
// is refused; with a null table Java throws reading its size (caught:
// an empty SUCCESS).
func (mut *mutation) refuseNew(req wire.RegisterRequest, body *wire.RegisterBody) (wire.RegisterResult, error) {
	if !body.TopicTableNull {
		return wire.RegisterResult{}, ErrRegisterFailed
	}
	mut.m.log.Error("register broker failed: null topic table from an unknown id", "cluster", req.ClusterName,
		"broker", req.BrokerName, "id", req.BrokerID, "addr", req.BrokerAddr)
	return wire.RegisterResult{}, nil
}

// versionOf is the body's DataVersion as Java decodes it: one without
// timestamp carries the wall-clock time of the registration.
func (m *Manager) versionOf(body *wire.RegisterBody) wire.DataVersion {
	dv := body.DataVersion
	if body.DataVersionUnstamped {
		dv.Timestamp = m.opts.Clock.Now().UnixMilli()
	}
	return dv
}

// memoDigest is the digest a live entry remembers of the registration's
// body: none for a body without DataVersion timestamp, which is a new
// version every time and so never unchanged.
func memoDigest(req wire.RegisterRequest, body *wire.RegisterBody) wire.BodyDigest {
	if body.DataVersionUnstamped {
		return wire.BodyDigest{}
	}
	return req.BodyDigest
}

// takeover is the outcome of step 6's check.
type takeover int

const (
	heldFree        takeover = iota // the registration goes on
	heldByNewer                     // refused: the holder's stateVersion is higher
	heldNullVersion                 // Java throws on a null DataVersion: nothing more is done
)

// idHeldByNewer is step 6: whether the id belongs to another address whose
// live entry has a higher stateVersion than the registrant's. Java reads
// both stateVersions first and throws (caught by registerBroker, which
// answers an empty result) when either DataVersion is null.
func (m *Manager) idHeldByNewer(b *brokerState, req wire.RegisterRequest, body *wire.RegisterBody, dv wire.DataVersion) takeover {
	old, ok := b.addrs[req.BrokerID]
	if !ok || old == req.BrokerAddr {
		return heldFree
	}
	e := m.live.m[addrKey{req.ClusterName, old}]
	switch {
	case e == nil:
		return heldFree
	case e.dvNull || body.DataVersionNull || body.WrapperNull:
		return heldNullVersion
	case e.dv.StateVersion > dv.StateVersion:
		return heldByNewer
	}
	return heldFree
}

// applyTopics is step 10: queue data and mappings of a master or prime
// slave. With an unchanged DataVersion (never one without timestamp, see
// RegisterBody.DataVersionUnstamped) only topics missing for this broker
// are added; when the topic set is the one last seen and nothing was
// removed since, that is provably none and the index is not probed. With a
// new DataVersion every topic is put, unless the content is the one last
// applied and no QueueData changed since: then every put would be a no-op.
func (mut *mutation) applyTopics(req wire.RegisterRequest, body *wire.RegisterBody, b *brokerState, registerFirst, primeSlave bool,
	digest wire.TopicsDigest) {
	m := mut.m
	k := addrKey{req.ClusterName, req.BrokerAddr}
	all := registerFirst || body.DataVersionUnstamped || m.dvChanged(k, body.DataVersion)
	if mut.settings.DeleteTopicWithBrokerRegistration && len(body.MappingInfos) == 0 {
		mut.deleteMissing(b.name, body.TopicConfigs)
	}
	n, strip := len(body.TopicConfigs), primeSlave && b.actingMaster
	cov := coverage{digest.Names(), n, m.removals, true}
	switch {
	case !all && b.covered == cov:
		return
	case all && b.applied == applied{digest.Content(), n, m.edits, strip, true}:
	default:
		mut.putTopics(b, body, all, strip)
		if all {
			b.applied = applied{digest.Content(), n, m.edits, strip, true}
		}
	}
	b.covered = coverage{digest.Names(), n, m.removals, true}
	if all {
		mut.putMappings(body.MappingInfos)
	}
}

// putTopics is step 10c: every topic when all is set, otherwise only the
// topics without a QueueData of the group. The rows it adds then get the
// places Java gives them (orderNewRows). A body whose keys are not all
// their topic names may name one topic twice; its keys are put in Java's
// order (putTopicsJavaOrder): without all, before anything else (the
// first key of a topic wins); with all, after the walk in map order has
// put the keys that are their topic's name (each put rewrites, so the
// walk in Java's order leaves what it alone would leave), which spares
// every other body a walk of its own to find out.
func (mut *mutation) putTopics(b *brokerState, body *wire.RegisterBody, all, stripWrite bool) {
	base := mut.m.rowsAdded
	if !all && aliased(body.TopicConfigs) {
		mut.putTopicsJavaOrder(b, body, all, stripWrite, base)
		return
	}
	mut.resetFresh() // a panic may have left rows behind
	fresh, alias := 0, false
	i := 0
	for k, tc := range body.TopicConfigs {
		yield.At(i)
		i++
		if k != tc.TopicName {
			alias = true
			continue
		}
		if mut.putTopic(b, &tc, all, stripWrite) {
			mut.noteFresh(body, k, tc.Pos, fresh == 0)
			fresh++
		}
	}
	switch {
	case alias:
		mut.putTopicsJavaOrder(b, body, all, stripWrite, base)
	case fresh > 1:
		mut.orderNewRows(body, base)
	}
	mut.resetFresh()
}

// aliased reports whether some key of tcs is not its topic's name.
func aliased(tcs map[string]wire.TopicConfig) bool {
	for k, tc := range tcs {
		if k != tc.TopicName {
			return true
		}
	}
	return false
}

// putTopicsJavaOrder is putTopics walking the keys as registerBroker
// walks its ConcurrentHashMap (javaKeyOrder): of two keys naming one
// topic, the wire.QueueData is the last's when all is set (each key rewrites
// it), the first's otherwise (the second finds the group's wire.QueueData).
// The rows added since base are then numbered in the order of the first
// key naming each, where Java adds them.
func (mut *mutation) putTopicsJavaOrder(b *brokerState, body *wire.RegisterBody, all, stripWrite bool, base uint64) {
	keys := body.KeyOrder()
	order := mut.javaKeyOrder(keys)
	for i, at := range order {
		yield.At(i)
		if tc, ok := body.TopicConfigs[keys[at]]; ok {
			mut.putTopic(b, &tc, all, stripWrite)
		}
	}
	if mut.m.rowsAdded-base > 1 {
		mut.renumberRows(body, keys, order, base)
	}
	mut.releaseKeyOrder()
}

// renumberRows gives the rows added since base the places base, base+1,
// ... in the order of the first key naming each (keys walked in order).
func (mut *mutation) renumberRows(body *wire.RegisterBody, keys []string, order []int32, base uint64) {
	seen := map[*topicEntry]struct{}{}
	for _, at := range order {
		tc, ok := body.TopicConfigs[keys[at]]
		if !ok || tc.NameNull {
			continue
		}
		if e := mut.m.row(tc.TopicName); e != nil && e.seq >= base {
			if _, dup := seen[e]; !dup {
				e.seq = base + uint64(len(seen))
				seen[e] = struct{}{}
			}
		}
	}
}

// putTopic writes the group's QueueData of one topic config, unless all
// is unset and the topic has it. It reports whether a row was added.
func (mut *mutation) putTopic(b *brokerState, tc *wire.TopicConfig, all, stripWrite bool) bool {
	if tc.NameNull { // Java's lookup by a null name throws: no topic
		return false
	}
	if !all {
		if e := mut.m.row(tc.TopicName); e != nil && e.has(b.name) {
			return false
		}
	}
	perm := tc.Perm
	if stripWrite {
		perm &^= wire.PermWrite
	}
	before := mut.m.rowsAdded
	mut.putQueue(tc.TopicName, wire.QueueData{BrokerName: b.name, ReadQueueNums: tc.ReadQueueNums,
		WriteQueueNums: tc.WriteQueueNums, Perm: perm, TopicSysFlag: tc.TopicSysFlag})
	return mut.m.rowsAdded != before
}

// dvChanged is isBrokerTopicConfigChanged: no live entry, a null stored
// DataVersion, or a different one.
func (m *Manager) dvChanged(k addrKey, dv wire.DataVersion) bool {
	e := m.live.m[k]
	return e == nil || e.dvNull || e.dv != dv
}

// deleteMissing is step 10b: drop the broker's queues of topics that are
// not keys of the registered topic table.
func (mut *mutation) deleteMissing(name string, tcs map[string]wire.TopicConfig) {
	for e := range mut.m.byBroker[name].all() {
		if _, ok := tcs[e.name]; !ok {
			mut.m.log.Info("delete topic missing from registration", "broker", name, "topic", e.name)
			mut.removeQueue(e, name)
		}
	}
}

// putMappings is step 10d: topicQueueMappingInfoTable[topic][bname] = info.
// An info equal to the one stored changes no route and is skipped.
func (mut *mutation) putMappings(infos map[string]*wire.TopicQueueMappingInfo) {
	m := mut.m
	for topic, info := range infos {
		if info == nil || sameMapping(m.mappings[topic][info.Bname], info) {
			continue
		}
		next := maps.Clone(m.mappings[topic])
		if next == nil {
			next = map[string]*wire.TopicQueueMappingInfo{}
		}
		next[info.Bname] = info
		m.mappings[topic] = next
		if e := m.row(topic); e != nil {
			mut.markTopic(e)
		}
	}
}

// sameMapping reports whether a stored mapping info (nil when none) has
// b's content; a nil and an empty CurrIDMap differ (null and {}).
func sameMapping(a, b *wire.TopicQueueMappingInfo) bool {
	return a != nil && a.Topic == b.Topic && a.Scope == b.Scope && a.ScopeNull == b.ScopeNull && a.TotalQueues == b.TotalQueues &&
		a.Bname == b.Bname && a.Epoch == b.Epoch && a.Dirty == b.Dirty &&
		(a.CurrIDMap == nil) == (b.CurrIDMap == nil) && maps.Equal(a.CurrIDMap, b.CurrIDMap)
}

// masterOf is step 13: a non-master learns its master's address and HA
// address when the master is live.
func (m *Manager) masterOf(b *brokerState, req wire.RegisterRequest) wire.RegisterResult {
	if req.BrokerID == wire.MasterID {
		return wire.RegisterResult{}
	}
	master, ok := b.addrs[wire.MasterID]
	if !ok {
		return wire.RegisterResult{}
	}
	e := m.live.m[addrKey{req.ClusterName, master}]
	if e == nil {
		return wire.RegisterResult{}
	}
	return wire.RegisterResult{HAServerAddr: e.ha, MasterAddr: master}
}

// topicsDigestOf returns the body's topics digest, computing it when the decoder did not
// (or the table no longer has the count it was computed for).
func topicsDigestOf(b *wire.RegisterBody) wire.TopicsDigest {
	if b.TopicsDigest.Count() == len(b.TopicConfigs) {
		return b.TopicsDigest
	}
	return wire.DigestTopics(b.TopicConfigs)
}

// coverage remembers the topic set of the group's last registration: all
// of its topics had a QueueData of the group when Manager.removals was
// epoch. While no QueueData has been removed since, a registration with
// the same set and an unchanged DataVersion has nothing to add.
type coverage struct {
	digest uint64 // TopicsDigest.Names
	count  int
	epoch  uint64
	valid  bool
}

// applied remembers the content of the group's last full application
// (every topic put, as with a new DataVersion): each topic held exactly
// the QueueData built from its config when Manager.edits was epoch. While
// no QueueData anywhere has changed since, a registration with the same
// content, even under a new DataVersion, would change nothing.
type applied struct {
	digest uint64 // TopicsDigest.Content
	count  int
	epoch  uint64
	strip  bool // WRITE was stripped (prime slave of an acting-master group)
	valid  bool
}
