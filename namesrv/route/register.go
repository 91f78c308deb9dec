package route

import (
	"hash/maphash"
	"maps"

	"github.com/rmqgo/nameserver/internal/yield"
)

// RegisterBroker applies a REGISTER_BROKER (docs/protocol.md section 4.2). It
// returns ErrRegisterFailed for the single-topic guard (step 7), and an empty
// result when the broker id is held by an address with a higher stateVersion
// (step 6). Side effects of the earlier steps remain, as in Java.
func (m *Manager) RegisterBroker(req RegisterRequest) (res RegisterResult, err error) {
	m.counts.registrations.Add(1)
	body := req.Body
	if body == nil {
		body = &RegisterBody{}
	}
	prints := printOf(body) // outside the coordinator
	m.mutate(func(t *mutation) { res, err = t.register(req, body, prints) })
	if err != nil {
		m.log.Warn("register broker refused: one topic from an unknown id", "cluster", req.ClusterName,
			"broker", req.BrokerName, "id", req.BrokerID, "addr", req.BrokerAddr)
	}
	return res, err
}

func (t *mutation) register(req RegisterRequest, body *RegisterBody, prints TopicsPrint) (RegisterResult, error) {
	m := t.m
	k := addrKey{req.ClusterName, req.BrokerAddr}
	m.live.track(req.Channel, req.BrokerAddr)
	t.joinCluster(req.ClusterName, req.BrokerName) // step 1
	b, registerFirst := t.brokerFor(req)           // steps 2-3
	prevMin, _ := b.minID()                        // step 4
	minChanged := req.BrokerID < prevMin
	t.dropAddr(b, req.BrokerAddr, &req.BrokerID) // step 5
	dv := m.versionOf(body)
	switch m.idHeldByNewer(b, req, body, dv) {
	case heldByNewer:
		t.dropLive(k) // step 6
		m.log.Warn("register broker conflicts with a newer holder of the id, ignored", "cluster", req.ClusterName,
			"broker", req.BrokerName, "id", req.BrokerID, "addr", req.BrokerAddr)
		return RegisterResult{}, nil
	case heldNullVersion:
		m.log.Error("register broker failed: null data version in the id takeover check", "cluster", req.ClusterName,
			"broker", req.BrokerName, "id", req.BrokerID, "addr", req.BrokerAddr)
		return RegisterResult{}, nil
	}
	if _, known := b.addrs[req.BrokerID]; !known && (body.TopicTableNull || len(body.TopicConfigs) == 1) {
		return t.refuseNew(req, body) // step 7
	}
	old, known := b.addrs[req.BrokerID] // step 8
	if !known || old != req.BrokerAddr {
		t.setAddr(b, req.BrokerID, req.BrokerAddr)
	}
	registerFirst = registerFirst || old == ""
	isMaster := req.BrokerID == MasterID // step 9
	minNow, _ := b.minID()
	isPrimeSlave := req.EnableActingMaster != nil && !isMaster && req.BrokerID == minNow
	applies := (isMaster || isPrimeSlave) && !body.TopicTableNull
	if applies {
		t.applyTopics(req, body, b, registerFirst, isPrimeSlave, prints) // step 10
	}
	if _, had := m.live.m[k]; !had {
		m.log.Info("new broker registered", "cluster", k.cluster, "addr", k.addr, "ha", req.HAServerAddr)
	}
	le := m.live.put(k, req, dv, body.DataVersionNull, m.opts.Clock.Mono()) // step 11
	le.memo = bodyMemo{memoDigest(req, body), m.removals, applies}
	t.setFilters(k, body.FilterServerList) // step 12
	if minChanged && t.settings.NotifyMinBrokerIDChanged {
		t.notes = append(t.notes, minIDChange(b.addrs, "", req.HAServerAddr)) // step 14
	}
	return m.masterOf(b, req), nil // step 13
}

func (t *mutation) joinCluster(cluster, name string) {
	names := t.m.clusters[cluster]
	if names == nil {
		names = map[string]struct{}{}
		t.m.clusters[cluster] = names
	}
	names[name] = struct{}{}
}

// brokerFor returns the broker group, creating it, and applies the
// registrant's zone and enableActingMaster (last registrant wins).
func (t *mutation) brokerFor(req RegisterRequest) (*brokerState, bool) {
	b := t.m.brokers[req.BrokerName]
	first := b == nil
	if first {
		b = &brokerState{cluster: req.ClusterName, name: req.BrokerName, addrs: map[int64]string{}}
		t.m.brokers[req.BrokerName] = b
		t.markBroker(b.name)
	}
	eam := req.EnableActingMaster != nil && *req.EnableActingMaster
	if b.actingMaster != eam || b.zone != req.ZoneName {
		b.actingMaster, b.zone = eam, req.ZoneName
		t.markBroker(b.name)
	}
	return b, first
}

// refuseNew is step 7 for an id not yet in the group: a body of one topic
// is refused; with a null table Java throws reading its size (caught:
// an empty SUCCESS).
func (t *mutation) refuseNew(req RegisterRequest, body *RegisterBody) (RegisterResult, error) {
	if !body.TopicTableNull {
		return RegisterResult{}, ErrRegisterFailed
	}
	t.m.log.Error("register broker failed: null topic table from an unknown id", "cluster", req.ClusterName,
		"broker", req.BrokerName, "id", req.BrokerID, "addr", req.BrokerAddr)
	return RegisterResult{}, nil
}

// versionOf is the body's DataVersion as Java decodes it: one without
// timestamp carries the wall-clock time of the registration.
func (m *Manager) versionOf(body *RegisterBody) DataVersion {
	dv := body.DataVersion
	if body.DataVersionUnstamped {
		dv.Timestamp = m.opts.Clock.Now().UnixMilli()
	}
	return dv
}

// memoDigest is the digest a live entry remembers of the registration's
// body: none for a body without DataVersion timestamp, which is a new
// version every time and so never unchanged.
func memoDigest(req RegisterRequest, body *RegisterBody) BodyDigest {
	if body.DataVersionUnstamped {
		return BodyDigest{}
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
func (m *Manager) idHeldByNewer(b *brokerState, req RegisterRequest, body *RegisterBody, dv DataVersion) takeover {
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
func (t *mutation) applyTopics(req RegisterRequest, body *RegisterBody, b *brokerState, registerFirst, primeSlave bool,
	prints TopicsPrint) {
	m := t.m
	k := addrKey{req.ClusterName, req.BrokerAddr}
	all := registerFirst || body.DataVersionUnstamped || m.dvChanged(k, body.DataVersion)
	if t.settings.DeleteTopicWithBrokerRegistration && len(body.MappingInfos) == 0 {
		t.deleteMissing(b.name, body.TopicConfigs)
	}
	n, strip := len(body.TopicConfigs), primeSlave && b.actingMaster
	cov := coverage{prints.names, n, m.removals, true}
	switch {
	case !all && b.covered == cov:
		return
	case all && b.applied == applied{prints.content, n, m.edits, strip, true}:
	default:
		t.putTopics(b, body, all, strip)
		if all {
			b.applied = applied{prints.content, n, m.edits, strip, true}
		}
	}
	b.covered = coverage{prints.names, n, m.removals, true}
	if all {
		t.putMappings(body.MappingInfos)
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
func (t *mutation) putTopics(b *brokerState, body *RegisterBody, all, stripWrite bool) {
	base := t.m.rowsAdded
	if !all && aliased(body.TopicConfigs) {
		t.putTopicsJavaOrder(b, body, all, stripWrite, base)
		return
	}
	t.resetFresh() // a panic may have left rows behind
	fresh, alias := 0, false
	i := 0
	for k, tc := range body.TopicConfigs {
		yield.At(i)
		i++
		if k != tc.TopicName {
			alias = true
			continue
		}
		if t.putTopic(b, &tc, all, stripWrite) {
			t.noteFresh(body, k, tc.Pos, fresh == 0)
			fresh++
		}
	}
	switch {
	case alias:
		t.putTopicsJavaOrder(b, body, all, stripWrite, base)
	case fresh > 1:
		t.orderNewRows(body, base)
	}
	t.resetFresh()
}

// aliased reports whether some key of tcs is not its topic's name.
func aliased(tcs map[string]TopicConfig) bool {
	for k, tc := range tcs {
		if k != tc.TopicName {
			return true
		}
	}
	return false
}

// putTopicsJavaOrder is putTopics walking the keys as registerBroker
// walks its ConcurrentHashMap (javaKeyOrder): of two keys naming one
// topic, the QueueData is the last's when all is set (each key rewrites
// it), the first's otherwise (the second finds the group's QueueData).
// The rows added since base are then numbered in the order of the first
// key naming each, where Java adds them.
func (t *mutation) putTopicsJavaOrder(b *brokerState, body *RegisterBody, all, stripWrite bool, base uint64) {
	keys := body.KeyOrder()
	order := t.javaKeyOrder(keys)
	for i, at := range order {
		yield.At(i)
		if tc, ok := body.TopicConfigs[keys[at]]; ok {
			t.putTopic(b, &tc, all, stripWrite)
		}
	}
	if t.m.rowsAdded-base > 1 {
		t.renumberRows(body, keys, order, base)
	}
	t.releaseKeyOrder()
}

// renumberRows gives the rows added since base the places base, base+1,
// ... in the order of the first key naming each (keys walked in order).
func (t *mutation) renumberRows(body *RegisterBody, keys []string, order []int32, base uint64) {
	seen := map[*topicEntry]struct{}{}
	for _, at := range order {
		tc, ok := body.TopicConfigs[keys[at]]
		if !ok || tc.NameNull {
			continue
		}
		if e := t.m.row(tc.TopicName); e != nil && e.seq >= base {
			if _, dup := seen[e]; !dup {
				e.seq = base + uint64(len(seen))
				seen[e] = struct{}{}
			}
		}
	}
}

// putTopic writes the group's QueueData of one topic config, unless all
// is unset and the topic has it. It reports whether a row was added.
func (t *mutation) putTopic(b *brokerState, tc *TopicConfig, all, stripWrite bool) bool {
	if tc.NameNull { // Java's lookup by a null name throws: no topic
		return false
	}
	if !all {
		if e := t.m.row(tc.TopicName); e != nil && e.has(b.name) {
			return false
		}
	}
	perm := tc.Perm
	if stripWrite {
		perm &^= PermWrite
	}
	before := t.m.rowsAdded
	t.putQueue(tc.TopicName, QueueData{BrokerName: b.name, ReadQueueNums: tc.ReadQueueNums,
		WriteQueueNums: tc.WriteQueueNums, Perm: perm, TopicSysFlag: tc.TopicSysFlag})
	return t.m.rowsAdded != before
}

// dvChanged is isBrokerTopicConfigChanged: no live entry, a null stored
// DataVersion, or a different one.
func (m *Manager) dvChanged(k addrKey, dv DataVersion) bool {
	e := m.live.m[k]
	return e == nil || e.dvNull || e.dv != dv
}

// deleteMissing is step 10b: drop the broker's queues of topics that are
// not keys of the registered topic table.
func (t *mutation) deleteMissing(name string, tcs map[string]TopicConfig) {
	for e := range t.m.byBroker[name].all() {
		if _, ok := tcs[e.name]; !ok {
			t.m.log.Info("delete topic missing from registration", "broker", name, "topic", e.name)
			t.removeQueue(e, name)
		}
	}
}

// putMappings is step 10d: topicQueueMappingInfoTable[topic][bname] = info.
// An info equal to the one stored changes no route and is skipped.
func (t *mutation) putMappings(infos map[string]*TopicQueueMappingInfo) {
	m := t.m
	for topic, info := range infos {
		if info == nil || sameMapping(m.mappings[topic][info.Bname], info) {
			continue
		}
		next := maps.Clone(m.mappings[topic])
		if next == nil {
			next = map[string]*TopicQueueMappingInfo{}
		}
		next[info.Bname] = info
		m.mappings[topic] = next
		if e := m.row(topic); e != nil {
			t.markTopic(e)
		}
	}
}

// sameMapping reports whether a stored mapping info (nil when none) has
// b's content; a nil and an empty CurrIDMap differ (null and {}).
func sameMapping(a, b *TopicQueueMappingInfo) bool {
	return a != nil && a.Topic == b.Topic && a.Scope == b.Scope && a.ScopeNull == b.ScopeNull && a.TotalQueues == b.TotalQueues &&
		a.Bname == b.Bname && a.Epoch == b.Epoch && a.Dirty == b.Dirty &&
		(a.CurrIDMap == nil) == (b.CurrIDMap == nil) && maps.Equal(a.CurrIDMap, b.CurrIDMap)
}

// masterOf is step 13: a non-master learns its master's address and HA
// address when the master is live.
func (m *Manager) masterOf(b *brokerState, req RegisterRequest) RegisterResult {
	if req.BrokerID == MasterID {
		return RegisterResult{}
	}
	master, ok := b.addrs[MasterID]
	if !ok {
		return RegisterResult{}
	}
	e := m.live.m[addrKey{req.ClusterName, master}]
	if e == nil {
		return RegisterResult{}
	}
	return RegisterResult{HAServerAddr: e.ha, MasterAddr: master}
}

// printSeed keys every TopicsPrint of the process.
var printSeed = maphash.MakeSeed()

// TopicsPrint is an order-independent fingerprint of a registration's
// topic table: of the topic names, and of the queue fields a QueueData is
// built from. Each part is a sum of seeded 64-bit hashes, so equal tables
// give equal prints and different ones collide with probability about
// 2^-64. The zero value means "not computed".
type TopicsPrint struct {
	names, content uint64
	count          int // topics folded in
}

// Add folds one entry of the table into p. Call it exactly once per entry
// of the final table (a decoder that overwrites a duplicate key must start
// over with PrintTopics).
func (p *TopicsPrint) Add(tc TopicConfig) {
	h := maphash.String(printSeed, tc.TopicName)
	p.names += h
	p.content += contentHash(h, tc)
	p.count++
}

// Count is the number of entries folded in.
func (p *TopicsPrint) Count() int { return p.count }

// PrintTopics computes the print of tcs.
func PrintTopics(tcs map[string]TopicConfig) TopicsPrint {
	var p TopicsPrint
	for _, tc := range tcs {
		yield.At(p.count)
		p.Add(tc)
	}
	return p
}

// printOf returns the body's print, computing it when the decoder did not
// (or the table no longer has the count it was computed for).
func printOf(b *RegisterBody) TopicsPrint {
	if b.Print.count == len(b.TopicConfigs) {
		return b.Print
	}
	return PrintTopics(b.TopicConfigs)
}

// contentHash chains the QueueData fields of tc into the seeded name hash
// h, so fields cannot cancel out without knowing the seed.
func contentHash(h uint64, tc TopicConfig) uint64 {
	h = mix64(h ^ (uint64(uint32(tc.ReadQueueNums))<<32 | uint64(uint32(tc.WriteQueueNums))))
	return mix64(h ^ (uint64(uint32(tc.Perm))<<32 | uint64(uint32(tc.TopicSysFlag))))
}

// mix64 is the splitmix64 finalizer, a bijection on 64-bit values.
func mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	return z ^ z>>31
}

// coverage remembers the topic set of the group's last registration: all
// of its topics had a QueueData of the group when Manager.removals was
// epoch. While no QueueData has been removed since, a registration with
// the same set and an unchanged DataVersion has nothing to add.
type coverage struct {
	print uint64 // TopicsPrint.names
	count int
	epoch uint64
	valid bool
}

// applied remembers the content of the group's last full application
// (every topic put, as with a new DataVersion): each topic held exactly
// the QueueData built from its config when Manager.edits was epoch. While
// no QueueData anywhere has changed since, a registration with the same
// content, even under a new DataVersion, would change nothing.
type applied struct {
	print uint64 // TopicsPrint.content
	count int
	epoch uint64
	strip bool // WRITE was stripped (prime slave of an acting-master group)
	valid bool
}
