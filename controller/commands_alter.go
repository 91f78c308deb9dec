//go:build embedded_controller

package controller

// AlterSyncStateSet handles 1001. Checks run in Java's order and the first
// failure wins (§1.2):
//
//  1. unknown set                         → 2013
//  2. new set equals the current one      → 2013
//  3. no master, or not the requester     → 2002
//  4. stale master epoch                  → 2000
//  5. stale sync-state-set epoch (body)   → 2001
//  6. per id, ascending: unregistered → 2003, not alive → 2006
//  7. the new set drops the master        → 2013
//
// On success the reply carries the new epoch (current+1) in the header and
// the new set in the body, and one AlterSyncStateSet event is returned.
func (s *State) AlterSyncStateSet(req AlterSyncStateSetRequest, live Liveness) (AlterSyncStateSetResponse, []Event, error) {
	r, ss, ok := s.get(req.BrokerName)
	if !ok {
		return AlterSyncStateSetResponse{}, nil, &Error{Kind: ErrAlterSyncStateSetFailed, Remark: remarkMetadataNotExist}
	}
	newSet := normalizeIDs(req.SyncStateSet.SyncStateSet)
	if err := checkAlterFencing(req, ss, newSet); err != nil {
		return AlterSyncStateSetResponse{}, nil, err
	}
	if err := checkAlterReplicas(r, ss, newSet, live); err != nil {
		return AlterSyncStateSetResponse{}, nil, err
	}
	epoch := ss.SyncStateSetEpoch + 1
	resp := AlterSyncStateSetResponse{NewSyncStateSetEpoch: epoch,
		SyncStateSet: &SyncStateSet{SyncStateSet: newSet, SyncStateSetEpoch: epoch}}
	return resp, []Event{AlterSyncStateSetEvent{BrokerName: req.BrokerName, NewSyncStateSet: newSet}}, nil
}

// checkAlterFencing runs checks 2-5.
func checkAlterFencing(req AlterSyncStateSetRequest, ss *SyncStateInfo, newSet []int64) error {
	if sameIDSet(normalizeIDs(ss.SyncStateSet), newSet) {
		return &Error{Kind: ErrAlterSyncStateSetFailed, Remark: remarkSameSyncStateSet}
	}
	if ss.MasterBrokerID == NoBrokerID || ss.MasterBrokerID != req.MasterBrokerID {
		return newError(ErrInvalidMaster,
			"Rejecting alter syncStateSet request because the current leader is:{%s}, not {%s}",
			idString(ss.MasterBrokerID), idString(req.MasterBrokerID))
	}
	if req.MasterEpoch != ss.MasterEpoch {
		return newError(ErrFencedMasterEpoch,
			"Rejecting alter syncStateSet request because the current master epoch is:{%d}, not {%d}",
			ss.MasterEpoch, req.MasterEpoch)
	}
	if req.SyncStateSet.SyncStateSetEpoch != ss.SyncStateSetEpoch {
		return newError(ErrFencedSyncStateSetEpoch,
			"Rejecting alter syncStateSet request because the current syncStateSet epoch is:{%d}, not {%d}",
			ss.SyncStateSetEpoch, req.SyncStateSet.SyncStateSetEpoch)
	}
	return nil
}

// checkAlterReplicas runs checks 6-7. Liveness uses the stored cluster name.
func checkAlterReplicas(r *ReplicaInfo, ss *SyncStateInfo, newSet []int64, live Liveness) error {
	for _, id := range newSet {
		if _, ok := r.Brokers[id]; !ok {
			return newError(ErrInvalidReplicas,
				"Rejecting alter syncStateSet request because the replicas {%d} don't exist", id)
		}
		if !live.IsActive(r.ClusterName, r.BrokerName, id) {
			return newError(ErrBrokerNotAlive,
				"Rejecting alter syncStateSet request because the replicas {%d} don't alive", id)
		}
	}
	if !containsID(newSet, ss.MasterBrokerID) {
		return newError(ErrAlterSyncStateSetFailed,
			"Rejecting alter syncStateSet request because the newSyncStateSet don't contains origin leader {%d}",
			ss.MasterBrokerID)
	}
	return nil
}
