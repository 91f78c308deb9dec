//go:build embedded_controller

package controller

import "fmt"

// Accounted size of the replicated state (config.StateBounds'
// controllerMaxStateBytes). Every event changes one broker set only (its
// two halves; tombstones are not counted but bounded in number, tombstone.go),
// so Apply keeps the total up to date by
// the set's cost before and after the event: no request scans the state.
// A state built otherwise (a restored snapshot) is counted once, by the
// first Apply or read after it.

// Per-entry costs, the bytes of the Go values beyond their strings (map
// entries, structs, headers), rounded up.
const (
	costSet    = 320 // both halves, their two map entries and names' headers
	costBroker = 96  // one id's map entry and its two strings' headers
	costID     = 8   // one id of a sync-state set (counted with its broker)
)

// setCost is the accounted size of everything stored under name.
func (s *state) setCost(name string) int64 {
	var n int64
	r, hasR := s.replicas[name]
	if hasR {
		n += costSet/2 + int64(len(name)+len(r.ClusterName))
		for _, b := range r.Brokers {
			n += costBroker + costID + int64(len(b.Address)+len(b.RegisterCheckCode))
		}
	}
	if ss, ok := s.syncStates[name]; ok {
		n += costSet/2 + int64(len(name)+len(ss.ClusterName))
		n += costID * int64(len(ss.SyncStateSet))
		if hasR { // a registered id's slot is counted with its broker
			for _, id := range ss.SyncStateSet {
				if _, ok := r.Brokers[id]; ok {
					n -= costID
				}
			}
		}
	}
	return n // tombstones are bounded in number instead (tombstone.go)
}

// newSetCost is the cost of a set created with one broker.
func newSetCost(cluster clusterName, name brokerName, addr brokerAddr, code checkCode) int64 {
	return costSet + 2*int64(len(name)+len(cluster)) + brokerCost(addr, code)
}

// brokerCost is the cost of one registered id, its slot in the sync-state
// set included: elections and alters only move registered ids in and out of
// that set, so they change no count and need no bound check (a full state
// still lets every real set's in-sync replicas change).
func brokerCost(addr brokerAddr, code checkCode) int64 {
	return costBroker + costID + int64(len(addr)+len(code))
}

// bytes returns the accounted size (a builder may call it under the read
// lock: it counts a state not yet sized without recording the count).
func (s *state) bytes() int64 {
	if !s.sized {
		return s.scanBytes()
	}
	return s.size
}

// ensureSized counts a state not yet sized; Apply calls it under the
// write lock before it applies an entry.
func (s *state) ensureSized() {
	if !s.sized {
		s.size, s.sized = s.scanBytes(), true
	}
}

// scanBytes counts the whole state (a restored snapshot; tests).
func (s *state) scanBytes() int64 {
	var n int64
	for name := range s.allNames() {
		n += s.setCost(name)
	}
	return n
}

// allNames is every name with a half or a tombstone.
func (s *state) allNames() map[string]struct{} {
	names := make(map[string]struct{}, len(s.replicas)+len(s.retired))
	for n := range s.replicas {
		names[n] = struct{}{}
	}
	for n := range s.syncStates {
		names[n] = struct{}{}
	}
	for n := range s.retired {
		names[n] = struct{}{}
	}
	return names
}

// applyCounted applies ev and keeps the accounted size up to date.
func applyCounted(s *state, ev event) error {
	name, ok := eventSetName(ev)
	if !ok || !s.sized {
		return ev.apply(s)
	}
	before := s.setCost(name)
	err := ev.apply(s)
	s.size += s.setCost(name) - before
	return err
}

// eventSetName is the one broker set an event changes.
func eventSetName(ev event) (string, bool) {
	switch e := ev.(type) {
	case applyBrokerIDEvent:
		return e.BrokerName, true
	case electMasterEvent:
		return e.BrokerName, true
	case alterSyncStateSetEvent:
		return e.BrokerName, true
	case cleanBrokerDataEvent:
		return e.BrokerName, true
	case updateBrokerAddressEvent:
		return e.BrokerName, true
	}
	return "", false
}

// checkRoom is the builders' bound check of a change of set name adding
// delta bytes and, for a new set, one set; a non-nil r gets one more id.
// The growth other sets' entries in flight reserved counts as held, and
// the change's own growth is reserved when it passes (lim.held,
// reserve.go).
func (s *state) checkRoom(lim stateLimits, name string, newSet bool, r *replicaInfo, delta int64) error {
	g := growth{bytes: max(delta, 0)}
	if newSet {
		g.sets = 1
	}
	return lim.held.reserve(lim.term, name, g, func(others growth) error {
		held := s.bytes() + others.bytes
		switch {
		case newSet && max(len(s.replicas), len(s.syncStates))+others.sets >= lim.BrokerSets:
			return stateBoundError("controllerMaxBrokerSets", fmt.Sprintf("%d broker sets", lim.BrokerSets))
		case r != nil && len(r.Brokers) >= lim.BrokersPerSet:
			return stateBoundError("controllerMaxBrokersPerSet", fmt.Sprintf("%d brokers in broker set %s",
				lim.BrokersPerSet, r.BrokerName))
		case delta > 0 && held+delta > lim.StateBytes:
			return stateBoundError("controllerMaxStateBytes", fmt.Sprintf("%d bytes of state (%d held, %d more asked)",
				lim.StateBytes, held, delta))
		}
		return nil
	})
}

// stateBoundError is the 2005 rejection of a change past a bound.
func stateBoundError(key, what string) error {
	e := newError(errStateBound, "the controller's replicated state is full: %s reaches %s", key, what)
	e.Key = key
	return e
}
