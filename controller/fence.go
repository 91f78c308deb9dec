//go:build embedded_controller

package controller

import "strings"

// Fencing of log entries (docs/controller.md section 2.4).
//
// A command builder reads the state and returns events; the events are
// appended to the Raft log and applied later. If another entry is applied
// in between (an earlier apply outlived its request deadline, or a former
// leader's entry commits late), the events would be applied to a state they
// were not built on: two masters for one master epoch, a master outside its
// sync-state set, a reply naming a master the log never recorded.
//
// Since controller format 1 (release 1.0.0), events carry the preconditions
// they were built on, and Apply rejects an event whose preconditions no
// longer hold, without changing the state, returning the fencing error
// (2000/2001/2002, 2014, ...) as applyResult.Err:
//   - AlterSyncStateSet, ElectMaster and CleanBrokerData carry a "fence"
//     object: the master epoch, sync-state-set epoch and master id the
//     builder saw (fence);
//   - ApplyBrokerID carries "fenced":true: Apply runs the builder's
//     membership check (brokerIDApplicable) again;
//   - UpdateBrokerAddress is unchanged: Apply has always refused an
//     unknown id without changing the state.
//
// Both fields are omitted from the JSON when absent, and an event decoded
// without them (an unfenced entry, written before release 1.0.0) applies exactly
// as before, so an old log replays identically. A batch entry that holds a
// fenced event is all-or-nothing. An entry that holds a fenced event
// starts with eventFenced, a type builds before 1.0.0 do not know: such
// a node stops on it (Apply panics on an unknown type) instead of applying
// it without its preconditions, so no controller of a group may run a
// build older than 1.0.0.

// fence is the sync-state half of a broker set as a builder saw it.
type fence struct {
	MasterEpoch       int32 `json:"masterEpoch"`
	SyncStateSetEpoch int32 `json:"syncStateSetEpoch"`
	MasterBrokerID    int64 `json:"masterBrokerId"`
}

// fenceOf records the preconditions of an event built on ss.
func fenceOf(ss *syncStateInfo) *fence {
	return &fence{MasterEpoch: ss.MasterEpoch, SyncStateSetEpoch: ss.SyncStateSetEpoch, MasterBrokerID: ss.MasterBrokerID}
}

// check returns both halves of the set when the fence still holds, else
// the first failed precondition: set gone (2008), master epoch (2000),
// sync-state-set epoch (2001), master id (2002). what names the request in
// the remark, e.g. "alter syncStateSet".
func (f *fence) check(s *state, brokerName, what string) (*replicaInfo, *syncStateInfo, error) {
	r, ss, ok := s.get(brokerName)
	switch {
	case !ok:
		return nil, nil, newError(errBrokerMetadataNotExist, "Rejecting %s request because broker set %s is not existed",
			what, brokerName)
	case ss.MasterEpoch != f.MasterEpoch:
		return nil, nil, newError(errFencedMasterEpoch,
			"Rejecting %s request because the current master epoch is:{%d}, not {%d}", what, ss.MasterEpoch, f.MasterEpoch)
	case ss.SyncStateSetEpoch != f.SyncStateSetEpoch:
		return nil, nil, newError(errFencedSyncStateSetEpoch,
			"Rejecting %s request because the current syncStateSet epoch is:{%d}, not {%d}",
			what, ss.SyncStateSetEpoch, f.SyncStateSetEpoch)
	case ss.MasterBrokerID != f.MasterBrokerID:
		return nil, nil, newError(errInvalidMaster, "Rejecting %s request because the current leader is:{%s}, not {%s}",
			what, idString(ss.MasterBrokerID), idString(f.MasterBrokerID))
	}
	return r, ss, nil
}

// checkRegistered fails with 2003 unless every id is a registered replica.
func checkRegistered(r *replicaInfo, ids []int64, what string) error {
	for _, id := range ids {
		if _, ok := r.Brokers[id]; !ok {
			return newError(errInvalidReplicas, "Rejecting %s request because the replicas {%d} don't exist", what, id)
		}
	}
	return nil
}

// brokerIDApplicable is the one membership check of APPLY_BROKER_ID, run
// by the builder (state.ApplyBrokerID) and again by Apply of a fenced
// applyBrokerIDEvent: a set without a replica entry accepts only id 1 (or
// the next id of its retired replica half, tombstone.go); a
// known set accepts an unused id >= 0, or an id already held with the same
// registerCheckCode (an idempotent retry).
func (s *state) brokerIDApplicable(brokerName string, id int64, checkCode string) error {
	r, known := s.replicas[brokerName]
	if !known {
		if id != s.firstBrokerID(brokerName) {
			return newError(errBrokerIDInvalid,
				"Broker-set: %s hasn't been registered in controller, but broker try to apply brokerId: %d", brokerName, id)
		}
		return nil
	}
	held, used := r.Brokers[id]
	if id >= 0 && (!used || held.RegisterCheckCode == checkCode) {
		return nil
	}
	return newError(errBrokerIDInvalid, "Fail to apply brokerId: %d in broker-set: %s", id, brokerName)
}

// applyFenced registers the id when the membership check still passes. A
// half-removed set (a CleanBrokerData that emptied its sync-state set drops
// that half) keeps its replicas and its NextAssignBrokerID; only the missing
// half is created (docs/controller.md section 2.5; Java would start afresh
// and forget live replicas and restart NextAssignBrokerID at 1). The counter
// stays Java's +1 per added id.
func (e applyBrokerIDEvent) applyFenced(s *state) error {
	if err := s.brokerIDApplicable(e.BrokerName, e.NewBrokerID, e.RegisterCheckCode); err != nil {
		return err
	}
	r, ok := s.replicas[e.BrokerName]
	if !ok {
		r = s.reviveReplicas(e.ClusterName, e.BrokerName)
		s.replicas[e.BrokerName] = r
	}
	if _, ok := s.syncStates[e.BrokerName]; !ok {
		s.syncStates[e.BrokerName] = s.reviveSync(e.ClusterName, e.BrokerName)
	}
	if _, used := r.Brokers[e.NewBrokerID]; !used {
		r.addBroker(e.NewBrokerID, e.BrokerAddress, e.RegisterCheckCode)
	}
	return nil
}

// brokerAddressOf is the address part of a registerCheckCode ("addr;time").
func brokerAddressOf(checkCode string) string {
	addr, _, _ := strings.Cut(checkCode, ";")
	return addr
}

// anyFenced reports whether an entry holds a fenced event.
func anyFenced(events []event) bool {
	for _, ev := range events {
		if ev.fenced() {
			return true
		}
	}
	return false
}
