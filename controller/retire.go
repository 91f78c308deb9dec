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
// Unfenced entries (written by the previous version) keep Java's behaviour
// so that an old log replays identically.

// retiredSet is the tombstone of a removed half of a broker set: the
// epochs of its sync-state half, the next broker id of its replica half.
type retiredSet struct {
	MasterEpoch       int32
	SyncStateSetEpoch int32
	NextBrokerID      int64
}

// retireSync records the epochs of a sync-state half about to be removed.
func (s *state) retireSync(brokerName string, ss *syncStateInfo) {
	t := s.retired[brokerName]
	t.MasterEpoch, t.SyncStateSetEpoch = ss.MasterEpoch, ss.SyncStateSetEpoch
	s.retired[brokerName] = t
}

// retireReplicas records the next id of a replica half about to be removed.
func (s *state) retireReplicas(brokerName string, r *replicaInfo) {
	t := s.retired[brokerName]
	t.NextBrokerID = r.NextAssignBrokerID
	s.retired[brokerName] = t
}

// firstBrokerID is the id a set without a replica half hands out: 1, or
// the next id of its retired replica half.
func (s *state) firstBrokerID(brokerName string) int64 {
	return max(firstBrokerID, s.retired[brokerName].NextBrokerID)
}

// reviveSync returns a new sync-state half continuing the retired epochs.
func (s *state) reviveSync(clusterName, brokerName string) *syncStateInfo {
	t := s.retired[brokerName]
	ss := &syncStateInfo{ClusterName: clusterName, BrokerName: brokerName, SyncStateSet: []int64{},
		MasterBrokerID: wire.NoBrokerID, MasterEpoch: t.MasterEpoch, SyncStateSetEpoch: t.SyncStateSetEpoch}
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
	return nil
}
