//go:build embedded_controller

package controller

import (
	"maps"
	"math"
	"slices"

	"github.com/rmqgo/nameserver/controller/wire"
)

// Broker sets cleaned by fenced CleanBrokerData entries depart from Java in
// two ways, both so that master epochs stay unique and never go down
// (brokers truncate their logs by master epoch, so an epoch reused by
// another master is a divergence):
//   - cleaning the current master's id clears the master and bumps the
//     master epoch, as a "no master" election records it (Java keeps the
//     cleaned id as master, outside its sync-state set);
//   - when a half of a set is removed (its sync-state set emptied, all its
//     ids cleaned, or the whole set cleaned), its epochs and its next broker
//     id are kept as a tombstone, and a half recreated by a later
//     APPLY_BROKER_ID continues from them (Java restarts at 0 and 1, so a
//     cleaned broker coming back under its old id would pass for the new
//     holder of that id). The first election of a recreated sync-state half
//     still goes to the requesting broker (SyncStateInfo.isFresh).
//
// Unfenced entries (written before release 1.0.0) keep Java's behaviour
// so that an old log replays identically.

// retiredSet is the tombstone of a removed half of a broker set: the
// epochs of its sync-state half, the next broker id of its replica half.
type retiredSet struct {
	MasterEpoch       int32
	SyncStateSetEpoch int32
	NextBrokerID      int64
}

// Tombstones are bounded: once a clean leaves more than maxRetiredSets,
// Apply folds them all into one, under floorName, holding the highest
// epochs and next id of any; a set without a tombstone of its own then
// continues from that floor (retiredOf), so the guarantee above holds for
// every name while the tombstones take at most maxRetiredSets entries. The
// bound is a code constant, so every node folds at the same entry. They
// are not counted in controllerMaxStateBytes (statesize.go): a client that
// may create and clean sets (ACL off) filled the bytes with them for good
// and no new set could be registered again.
const (
	maxRetiredSets = 4096
	// floorName keys the folded tombstone: a NUL byte breaks nameRule, so
	// no checked entry names a set so.
	floorName = "\x00folded"
)

// retiredOf is what a removed half of name continues from: its own
// tombstone or the floor, whichever is higher, field by field.
func (s *state) retiredOf(brokerName string) retiredSet {
	return higher(s.retired[brokerName], s.retired[floorName])
}

func higher(a, b retiredSet) retiredSet {
	return retiredSet{MasterEpoch: max(a.MasterEpoch, b.MasterEpoch),
		SyncStateSetEpoch: max(a.SyncStateSetEpoch, b.SyncStateSetEpoch), NextBrokerID: max(a.NextBrokerID, b.NextBrokerID)}
}

// capRetired folds the tombstones into the floor once they pass the bound.
func (s *state) capRetired() {
	if len(s.retired) <= maxRetiredSets {
		return
	}
	var floor retiredSet
	for _, t := range s.retired {
		floor = higher(floor, t)
	}
	clear(s.retired)
	s.retired[floorName] = floor
}

// retireSync records the epochs of a sync-state half about to be removed.
func (s *state) retireSync(brokerName string, ss *syncStateInfo) {
	t := s.retired[brokerName]
	t.MasterEpoch, t.SyncStateSetEpoch = ss.MasterEpoch, ss.SyncStateSetEpoch
	s.putRetired(brokerName, t)
}

// retireReplicas records the next id of a replica half about to be removed.
func (s *state) retireReplicas(brokerName string, r *replicaInfo) {
	t := s.retired[brokerName]
	t.NextBrokerID = r.NextAssignBrokerID
	s.putRetired(brokerName, t)
}

// putRetired stores the tombstone of a removed half. Under floorName (a
// set an earlier version stored under that name, then cleaned) it only
// raises the floor, field by field: the floor is never lowered.
func (s *state) putRetired(brokerName string, t retiredSet) {
	if brokerName == floorName {
		t = higher(t, s.retired[floorName])
	}
	s.retired[brokerName] = t
}

// firstBrokerID is the id a set without a replica half hands out: 1, or
// the next id of its retired replica half.
func (s *state) firstBrokerID(brokerName string) int64 {
	return max(firstBrokerID, s.retiredOf(brokerName).NextBrokerID)
}

// reviveSync returns a new sync-state half continuing the retired epochs.
func (s *state) reviveSync(clusterName, brokerName string) *syncStateInfo {
	from := s.retiredOf(brokerName)
	ss := &syncStateInfo{ClusterName: clusterName, BrokerName: brokerName, SyncStateSet: []int64{},
		MasterBrokerID: wire.NoBrokerID, MasterEpoch: from.MasterEpoch, SyncStateSetEpoch: from.SyncStateSetEpoch}
	t := s.retired[brokerName]
	t.MasterEpoch, t.SyncStateSetEpoch = 0, 0
	s.setRetired(brokerName, t)
	return ss
}

// reviveReplicas returns a new replica half continuing the retired next id.
func (s *state) reviveReplicas(clusterName, brokerName string) *replicaInfo {
	r := &replicaInfo{ClusterName: clusterName, BrokerName: brokerName,
		NextAssignBrokerID: s.firstBrokerID(brokerName), Brokers: map[int64]brokerIDInfo{}}
	t := s.retired[brokerName]
	t.NextBrokerID = 0
	s.setRetired(brokerName, t)
	return r
}

func (s *state) setRetired(brokerName string, t retiredSet) {
	if brokerName == floorName {
		return // the floor is never lowered
	}
	if t == (retiredSet{}) {
		delete(s.retired, brokerName)
		return
	}
	s.retired[brokerName] = t
}

// retiredNames lists the tombstones, sorted (for snapshots).
func (s *state) retiredNames() []string {
	return slices.Sorted(maps.Keys(s.retired))
}

// applyFenced is CleanBrokerData for an entry whose fence held.
func (e cleanBrokerDataEvent) applyFenced(s *state) error {
	r, ss, ok := s.get(e.BrokerName)
	if !ok {
		return nil
	}
	if len(e.IDs) == 0 {
		s.retireSync(e.BrokerName, ss)
		s.retireReplicas(e.BrokerName, r)
		delete(s.replicas, e.BrokerName)
		delete(s.syncStates, e.BrokerName)
		s.capRetired()
		return nil
	}
	if ss.MasterBrokerID != wire.NoBrokerID && containsID(e.IDs, ss.MasterBrokerID) {
		if ss.MasterEpoch == math.MaxInt32 { // ours: no wrapped epoch
			return newError(errInvalidCleanBrokerMetadata, "clean broker data of %s: %s", e.BrokerName, remarkEpochExhausted)
		}
		ss.MasterBrokerID = wire.NoBrokerID
		ss.MasterEpoch++
	}
	s.dropIDs(e.BrokerName, r, ss, e.IDs, true)
	s.capRetired()
	return nil
}
