package route

import "github.com/rmqgo/nameserver/namesrv/wire"

// bodyMemo is what a live entry keeps of the body last applied for it, so
// that a byte-identical re-registration can be answered without decoding
// the body (32 bytes per live broker). Coordinator only.
type bodyMemo struct {
	digest   wire.BodyDigest
	removals uint64 // Manager.removals right after the body was applied
	applied  bool   // step 10 ran: the broker was a master or prime slave
}

// RegisterIfUnchanged applies a REGISTER_BROKER whose body has the digest
// recorded by the last registration of the same (cluster, address) without
// the body: req.Body is ignored. It reports false, having changed nothing,
// unless the full RegisterBroker with that body would change nothing but
// the broker's liveness (a new generation, channel, HA address and timeout
// from the header) and answer the same; the caller then decodes the body
// and calls RegisterBroker.
func (m *Manager) RegisterIfUnchanged(req wire.RegisterRequest) (res wire.RegisterResult, ok bool) {
	if req.BodyDigest == (wire.BodyDigest{}) {
		return res, false
	}
	m.mutate(func(mut *mutation) { res, ok = mut.registerIfUnchanged(req) })
	if ok {
		m.counts.registrations.Add(1)
		m.counts.unchanged.Add(1)
	}
	return res, ok
}

func (mut *mutation) registerIfUnchanged(req wire.RegisterRequest) (wire.RegisterResult, bool) {
	m := mut.m
	k := addrKey{req.ClusterName, req.BrokerAddr}
	e := m.live.m[k]
	if e == nil || e.memo.digest != req.BodyDigest || mut.settings.DeleteTopicWithBrokerRegistration {
		return wire.RegisterResult{}, false // no body to compare, or step 10b would walk the table
	}
	b := m.brokers[req.BrokerName]
	if b == nil || !mut.sameGroup(b, req) {
		return wire.RegisterResult{}, false
	}
	if mut.appliesTopics(b, req) && (!e.memo.applied || e.memo.removals != m.removals) {
		return wire.RegisterResult{}, false // step 10 might find topics to add
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
func (mut *mutation) sameGroup(b *brokerState, req wire.RegisterRequest) bool {
	if _, in := mut.m.clusters[req.ClusterName][req.BrokerName]; !in {
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
func (mut *mutation) appliesTopics(b *brokerState, req wire.RegisterRequest) bool {
	if req.BrokerID == wire.MasterID {
		return true
	}
	minNow, _ := b.minID()
	return req.EnableActingMaster != nil && req.BrokerID == minNow
}
