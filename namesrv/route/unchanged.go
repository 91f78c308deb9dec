package route

// BodyDigest identifies a registration body: a hash (the namesrv
// processor's registerDigest: half of a seeded 128-bit XXH3 of the body,
// and a seeded 64-bit maphash over all of it, the body's length and
// whatever else changes how the body decodes or whom it belongs to:
// broker name and id, request version, compressed flag, bodyCrc32; 16
// bytes). The zero value means "none".
type BodyDigest [16]byte

// bodyMemo is what a live entry keeps of the body last applied for it, so
// that a byte-identical re-registration can be answered without decoding
// the body (32 bytes per live broker). Coordinator only.
type bodyMemo struct {
	digest   BodyDigest
	removals uint64 // Manager.removals right after the body was applied
	applied  bool   // step 10 ran: the broker was a master or prime slave
}

// RegisterUnchanged applies a REGISTER_BROKER whose body has the digest
// recorded by the last registration of the same (cluster, address) without
// the body: req.Body is ignored. It reports false, having changed nothing,
// unless the full RegisterBroker with that body would change nothing but
// the broker's liveness (a new generation, channel, HA address and timeout
// from the header) and answer the same; the caller then decodes the body
// and calls RegisterBroker.
func (m *Manager) RegisterUnchanged(req RegisterRequest) (res RegisterResult, ok bool) {
	if req.BodyDigest == (BodyDigest{}) {
		return res, false
	}
	m.mutate(func(t *mutation) { res, ok = t.registerUnchanged(req) })
	if ok {
		m.counts.registrations.Add(1)
		m.counts.unchanged.Add(1)
	}
	return res, ok
}

func (t *mutation) registerUnchanged(req RegisterRequest) (RegisterResult, bool) {
	m := t.m
	k := addrKey{req.ClusterName, req.BrokerAddr}
	e := m.live.m[k]
	if e == nil || e.memo.digest != req.BodyDigest || t.settings.DeleteTopicWithBrokerRegistration {
		return RegisterResult{}, false // no body to compare, or step 10b would walk the table
	}
	b := m.brokers[req.BrokerName]
	if b == nil || !t.sameGroup(b, req) {
		return RegisterResult{}, false
	}
	if t.appliesTopics(b, req) && (!e.memo.applied || e.memo.removals != m.removals) {
		return RegisterResult{}, false // step 10 might find topics to add
	}
	// Step 11: the body's DataVersion is the one stored. The memo stays as
	// it is: its removals epoch vouches for topics applied back then, and
	// moving it here, where step 10 was not checked (not the master or
	// prime slave now), would hide removals made since from a later
	// registration as prime slave.
	m.live.track(req.Channel, req.BrokerAddr)
	m.live.put(k, req, e.dv, e.dvNull, m.opts.Clock.Mono())
	return m.masterOf(b, req), true // step 13
}

// sameGroup reports whether steps 1-8 of the registration would change
// nothing: the group is in the cluster, has the registrant's zone and
// enableActingMaster, and maps the address to the broker id only.
func (t *mutation) sameGroup(b *brokerState, req RegisterRequest) bool {
	if _, in := t.m.clusters[req.ClusterName][req.BrokerName]; !in {
		return false
	}
	eam := req.EnableActingMaster != nil && *req.EnableActingMaster
	if b.actingMaster != eam || b.zone != req.ZoneName {
		return false
	}
	for id, a := range b.addrs {
		if (a == req.BrokerAddr) != (id == req.BrokerID) {
			return false
		}
	}
	_, known := b.addrs[req.BrokerID]
	return known
}

// appliesTopics is step 9: whether the registrant is a master or the
// prime slave of an acting-master registration, whose topics step 10
// applies.
func (t *mutation) appliesTopics(b *brokerState, req RegisterRequest) bool {
	if req.BrokerID == MasterID {
		return true
	}
	minNow, _ := b.minID()
	return req.EnableActingMaster != nil && req.BrokerID == minNow
}
