package route

import (
	"slices"
	"strings"
)

// Once every connection of a broker address has closed or expired, no
// broker group lists the address and no route names it, whatever order
// its registrations (under other names, ids or clusters), closes,
// expiries and explicit or queued unregistrations came in
// (docs/protocol.md section 4.4). While a connection that registered the
// address is open, the tables do what Java does: an explicit
// UNREGISTER_BROKER or a refused registration (step 6) leaves the
// address's other groups and its filter servers as they are. An address
// is swept from every group when it has neither a live entry nor an open
// connection that registered it (connaddrs.go): when its last live entry
// goes while no such connection is open, or when the last such connection
// closes or expires while it has no live entry. Java leaves a group behind
// when the address re-registered under another name, or sits in two
// groups, before its old connection's unregistration is applied; such a
// group has no live entry, so neither an expiry nor a close would ever
// remove it.
//
// Manager.addrUses counts the (group, id) pairs of each address and
// liveTable.byAddr the live entries of each address, so that the groups
// are searched only when an address without a live entry or connection
// is still listed.

// setAddr maps id of b to addr (step 8).
func (mut *mutation) setAddr(b *brokerState, id int64, addr string) {
	if old, ok := b.addrs[id]; ok {
		mut.m.unuseAddr(old)
	}
	b.putAddr(id, addr)
	mut.m.addrUses[addr]++
	mut.markBroker(b.name)
}

// unuseAddr uncounts one (group, id) pair mapping to addr.
func (m *Manager) unuseAddr(addr string) {
	if m.addrUses[addr]--; m.addrUses[addr] <= 0 {
		delete(m.addrUses, addr)
	}
}

// dropLive removes the live entry of k outside an unregistration (step 6).
// Its filter servers stay, as in Java, until the address is swept, which
// happens at once when the address has no other live entry and no open
// connection.
func (mut *mutation) dropLive(k addrKey) {
	if mut.m.live.remove(k) == nil {
		return
	}
	if _, ok := mut.m.filters[k]; ok {
		cs := mut.m.keptFilters[k.addr]
		if cs == nil {
			cs = map[string]struct{}{}
			mut.m.keptFilters[k.addr] = cs
		}
		cs[k.cluster] = struct{}{}
	}
	ub := newUnregBatch()
	ub.gone = append(ub.gone, k.addr)
	mut.finishUnregister(&ub)
}

// dropRenamed applies a queued unregistration whose address registered
// again under another broker name since: the live entry is the new
// registration's and stays, but the group the unregistration names lost
// its connection to the address and no longer lists it, unless a live
// entry of the address in another cluster registered under that name.
func (mut *mutation) dropRenamed(r unregReq, ub *unregBatch) {
	m := mut.m
	b := m.brokers[r.BrokerName]
	if b == nil || b.cluster != r.ClusterName {
		return
	}
	if _, ok := idOf(b.addrs, r.BrokerAddr); !ok {
		return
	}
	for c := range m.clusters {
		if e := m.live.m[addrKey{c, r.BrokerAddr}]; e != nil && e.name == r.BrokerName {
			return
		}
	}
	m.log.Info("unregister renamed broker's old group", "cluster", r.ClusterName, "addr", r.BrokerAddr,
		"broker", r.BrokerName, "id", r.BrokerID)
	mut.leaveGroup(b, r.BrokerAddr, r.BrokerID, r.ClusterName, ub)
}

// dropDeadAddrs removes each address of ub.gone that has neither a live
// entry nor an open connection from every group still listing it, in name
// order, and drops the filter servers step 6 kept for it.
func (mut *mutation) dropDeadAddrs(ub *unregBatch) {
	m := mut.m
	for _, addr := range ub.gone {
		if m.live.byAddr[addr] > 0 || m.live.addrConns[addr] > 0 {
			continue
		}
		for c := range m.keptFilters[addr] {
			mut.setFilters(addrKey{c, addr}, []string{})
		}
		delete(m.keptFilters, addr)
		if m.addrUses[addr] == 0 {
			continue
		}
		for _, b := range m.groupsListing(addr) {
			id, _ := idOf(b.addrs, addr)
			m.log.Info("drop address without live entry or connection", "broker", b.name, "id", id, "addr", addr)
			mut.leaveGroup(b, addr, id, "", ub)
		}
	}
}

// groupsListing returns the groups mapping some id to addr, by name.
func (m *Manager) groupsListing(addr string) []*brokerState {
	var out []*brokerState
	for _, b := range m.brokers {
		for _, a := range b.addrs {
			if a == addr {
				out = append(out, b)
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b *brokerState) int { return strings.Compare(a.name, b.name) })
	return out
}
