//go:build embedded_controller

package controller

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/wire"
)

// Leader-side command builders for broker registration, reads, cleaning and
// sync-state-set changes (ReplicasInfoManager). They only read the state; the returned events are
// appended to the Raft log as one entry and the response is sent once that
// entry is applied. A returned error still comes with the response whose
// header Java sends alongside the error code.

// GetNextBrokerID answers 1012: the next id of the set, or 1 when the set has
// no replica entry. It never fails.
func (s *state) GetNextBrokerID(req wire.GetNextBrokerIDRequest) wire.GetNextBrokerIDResponse {
	resp := wire.GetNextBrokerIDResponse{ClusterName: req.ClusterName, BrokerName: req.BrokerName,
		NextBrokerID: s.firstBrokerID(req.BrokerName)}
	if r, ok := s.replicas[req.BrokerName]; ok {
		resp.NextBrokerID = r.NextAssignBrokerID
	}
	return resp
}

// ApplyBrokerID handles 1013. A set without a replica entry accepts only id
// 1; a known set accepts any unused id, or an id already held with the same
// registerCheckCode (an idempotent retry, whose event changes nothing).
//
// Deviations from Java, which would fail with an NPE (code 1) or corrupt the
// sentinel: an empty registerCheckCode is rejected with 2005, and a negative
// id (-1 means "controller trigger" in elections) with 2014.
//
// Ours: the names and the check code must parse (field_rules.go) and the id must
// fit the bounds of the state (statesize.go), else 2005 naming the field
// or the key; the default limits apply (applyBrokerID takes the node's).
func (s *state) ApplyBrokerID(req wire.ApplyBrokerIDRequest) (wire.ApplyBrokerIDResponse, []event, error) {
	return s.applyBrokerID(req, defaultLimits)
}

func (s *state) applyBrokerID(req wire.ApplyBrokerIDRequest, lim stateLimits) (wire.ApplyBrokerIDResponse, []event, error) {
	resp := wire.ApplyBrokerIDResponse{ClusterName: req.ClusterName, BrokerName: req.BrokerName}
	cmd, err := parseApplyBrokerID(req, lim)
	if err != nil {
		if nameRule(req.ClusterName, lim.NameLength) != "" || nameRule(req.BrokerName, lim.NameLength) != "" {
			resp = wire.ApplyBrokerIDResponse{} // never echo a name that did not parse
		}
		return resp, nil, err
	}
	if err := s.brokerIDApplicable(string(cmd.name), cmd.id, string(cmd.code)); err != nil {
		return resp, nil, err
	}
	if err := s.roomForID(cmd, lim); err != nil {
		return resp, nil, err
	}
	return resp, []event{cmd.event()}, nil
}

// RegisterBroker handles 1003. The master fields of the reply are set only
// when a master exists and is alive (checked with the request's cluster
// name, as Java does). A changed address yields an UpdateBrokerAddress event;
// an empty address is never stored (Java would throw).
//
// Ours: a brokerName that does not parse and names no stored set, or a
// changed address that does not parse or would pass the state's bound, is
// answered 2005 (registerBroker takes the node's limits).
func (s *state) RegisterBroker(req wire.RegisterBrokerRequest, live liveness.Reader) (wire.RegisterBrokerResponse, []event, error) {
	return s.registerBroker(req, live, defaultLimits)
}

func (s *state) registerBroker(req wire.RegisterBrokerRequest, live liveness.Reader, lim stateLimits) (wire.RegisterBrokerResponse, []event, error) {
	if _, err := s.parseSetName(req.BrokerName, lim.NameLength); err != nil {
		return wire.RegisterBrokerResponse{}, nil, err
	}
	resp := wire.RegisterBrokerResponse{ClusterName: req.ClusterName, BrokerName: req.BrokerName}
	r, ss, ok := s.get(req.BrokerName)
	if !ok {
		return resp, nil, newError(errBrokerNeedToBeRegistered,
			"Broker-set: %s hasn't been registered in controller", req.BrokerName)
	}
	stored, ok := r.address(req.BrokerID)
	if !ok {
		return resp, nil, newError(errBrokerNeedToBeRegistered,
			"BrokerId: %d hasn't been registered in broker-set: %s", req.BrokerID, req.BrokerName)
	}
	if ss.MasterBrokerID != wire.NoBrokerID && live.IsActive(req.ClusterName, req.BrokerName, ss.MasterBrokerID) {
		resp.MasterBrokerID = ss.masterPtr()
		resp.MasterAddress = r.addressPtr(ss.MasterBrokerID)
		resp.MasterEpoch, resp.SyncStateSetEpoch = ptr(ss.MasterEpoch), ptr(ss.SyncStateSetEpoch)
	}
	resp.SyncStateSet = &wire.SyncStateSet{SyncStateSet: wire.NormalizeIDs(ss.SyncStateSet), SyncStateSetEpoch: ss.SyncStateSetEpoch}
	if req.BrokerAddress == "" || req.BrokerAddress == stored {
		return resp, nil, nil
	}
	addr, err := parseAddr("brokerAddress", req.BrokerAddress)
	if err == nil {
		err = s.roomForAddr(req.BrokerName, req.BrokerID, addr, lim)
	}
	if err != nil {
		return resp, nil, err
	}
	// The stored cluster name, not the request's: it is not validated
	// and Apply does not read it, but it would go into the Raft log.
	return resp, []event{updateBrokerAddressEvent{ClusterName: r.ClusterName, BrokerName: req.BrokerName,
		BrokerAddress: string(addr), BrokerID: req.BrokerID, Checked: true}}, nil
}

// GetReplicaInfo answers 1004: master id/address (absent without a master),
// master epoch, and the sync-state set with its epoch as the body.
func (s *state) GetReplicaInfo(req wire.GetReplicaInfoRequest) (wire.GetReplicaInfoResponse, error) {
	r, ss, ok := s.get(req.BrokerName)
	if !ok {
		return wire.GetReplicaInfoResponse{}, &domainError{Kind: errBrokerMetadataNotExist, Remark: remarkMetadataNotExist}
	}
	resp := wire.GetReplicaInfoResponse{MasterBrokerID: ss.masterPtr(), MasterEpoch: ptr(ss.MasterEpoch),
		SyncStateSet: &wire.SyncStateSet{SyncStateSet: wire.NormalizeIDs(ss.SyncStateSet), SyncStateSetEpoch: ss.SyncStateSetEpoch}}
	if ss.MasterBrokerID != wire.NoBrokerID {
		resp.MasterAddress = r.addressPtr(ss.MasterBrokerID)
	}
	return resp, nil
}

// GetSyncStateData answers 1006 for the named sets; unknown names are left
// out. An empty list is Java's "not set any response code" (code 1).
func (s *state) GetSyncStateData(brokerNames []string, live liveness.Reader) (wire.GetSyncStateDataResponse, error) {
	if len(brokerNames) == 0 {
		return wire.GetSyncStateDataResponse{}, &domainError{Kind: errSystem, Remark: remarkNotSetAnyResponseCode}
	}
	out := wire.BrokerReplicasInfo{ReplicasInfoTable: map[string]wire.ReplicasInfo{}}
	for _, name := range brokerNames {
		if r, ss, ok := s.get(name); ok {
			out.ReplicasInfoTable[name] = replicasInfo(r, ss, live)
		}
	}
	return wire.GetSyncStateDataResponse{Info: out}, nil
}

func replicasInfo(r *replicaInfo, ss *syncStateInfo, live liveness.Reader) wire.ReplicasInfo {
	ri := wire.ReplicasInfo{MasterBrokerID: ss.masterPtr(), MasterEpoch: ss.MasterEpoch,
		SyncStateSetEpoch: ss.SyncStateSetEpoch, InSyncReplicas: []wire.ReplicaIdentity{}, NotInSyncReplicas: []wire.ReplicaIdentity{}}
	if ss.MasterBrokerID != wire.NoBrokerID {
		ri.MasterAddress = r.addressPtr(ss.MasterBrokerID)
	}
	for _, id := range r.sortedIDs() {
		rep := wire.ReplicaIdentity{Alive: live.IsActive(r.ClusterName, r.BrokerName, id),
			BrokerAddress: r.Brokers[id].Address, BrokerID: id, BrokerName: r.BrokerName}
		if containsID(ss.SyncStateSet, id) {
			ri.InSyncReplicas = append(ri.InSyncReplicas, rep)
		} else {
			ri.NotInSyncReplicas = append(ri.NotInSyncReplicas, rep)
		}
	}
	return ri
}

// CleanBrokerData handles 1011. Without isCleanLivingBroker it refuses a
// blank id list while a master exists, a malformed list, and any listed id
// that is alive; with it the id list is ignored and the whole set goes.
func (s *state) CleanBrokerData(req wire.CleanBrokerDataRequest, live liveness.Reader) (wire.CleanBrokerDataResponse, []event, error) {
	if _, err := s.parseSetName(req.BrokerName, hardLimits.NameLength); err != nil {
		return wire.CleanBrokerDataResponse{}, nil, err
	}
	var ids []int64
	if !req.IsCleanLivingBroker {
		var err error
		if ids, err = s.checkCleanable(req, live); err != nil {
			return wire.CleanBrokerDataResponse{}, nil, err
		}
	}
	r, ss, ok := s.get(req.BrokerName)
	if !ok {
		return wire.CleanBrokerDataResponse{}, nil, newError(errInvalidCleanBrokerMetadata,
			"Broker %s is not existed,clean broker data failure.", req.BrokerName)
	}
	if ids != nil {
		// Ours: only registered ids go into the entry (the others are
		// no-ops), so it is bounded by the set; none left: nothing to do.
		if ids = registeredIDs(r, ids); len(ids) == 0 {
			return wire.CleanBrokerDataResponse{}, nil, nil
		}
	}
	return wire.CleanBrokerDataResponse{}, []event{cleanBrokerDataEvent{BrokerName: req.BrokerName, IDs: ids,
		Fence: fenceOf(ss)}}, nil
}

// registeredIDs keeps the ids registered in r.
func registeredIDs(r *replicaInfo, ids []int64) []int64 {
	out := []int64{}
	for _, id := range ids {
		if _, ok := r.Brokers[id]; ok {
			out = append(out, id)
		}
	}
	return out
}

func (s *state) checkCleanable(req wire.CleanBrokerDataRequest, live liveness.Reader) ([]int64, error) {
	if strings.TrimSpace(req.BrokerControllerIDsToClean) == "" {
		if ss, ok := s.syncStates[req.BrokerName]; ok && ss.MasterBrokerID != wire.NoBrokerID {
			return nil, newError(errInvalidCleanBrokerMetadata, "Broker %s is still alive, clean up failure", req.BrokerName)
		}
		return nil, nil
	}
	if n := strings.Count(req.BrokerControllerIDsToClean, ";"); n >= hardLimits.BrokersPerSet*2 {
		// ours: a set holds at most that many ids; the split of a longer
		// list would take memory in proportion to the frame
		return nil, invalidField("brokerControllerIdsToClean",
			fmt.Sprintf("must list at most %d ids (got %d separators)", hardLimits.BrokersPerSet*2, n))
	}
	ids, err := parseIDList(req.BrokerControllerIDsToClean)
	if err != nil {
		return nil, newError(errInvalidCleanBrokerMetadata,
			"Please set the option <brokerControllerIdsToClean> according to the format, exception: %s", err)
	}
	for _, id := range ids {
		if live.IsActive(req.ClusterName, req.BrokerName, id) {
			return nil, newError(errInvalidCleanBrokerMetadata, "Broker [%s,  %d] is still alive, clean up failure",
				req.BrokerName, id)
		}
	}
	return ids, nil
}

// javaNumberFormatError renders Java's NumberFormatException.toString().
type javaNumberFormatError string

func (e javaNumberFormatError) Error() string {
	return `java.lang.NumberFormatException: For input string: "` + string(e) + `"`
}

// parseIDList parses "1;2;3" like Java's split(";") + Long.valueOf: trailing
// empty parts are dropped, any other bad part fails. The result is sorted
// and unique.
func parseIDList(s string) ([]int64, error) {
	parts := strings.Split(s, ";")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	ids := make([]int64, 0, len(parts))
	for _, p := range parts {
		id, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, javaNumberFormatError(p)
		}
		ids = append(ids, id)
	}
	return wire.NormalizeIDs(ids), nil
}

// AlterSyncStateSet handles 1001. Checks run in Java's order and the first
// failure wins (docs/controller.md section 1.2):
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
func (s *state) AlterSyncStateSet(req wire.AlterSyncStateSetRequest, live liveness.Reader) (wire.AlterSyncStateSetResponse, []event, error) {
	if _, err := s.parseSetName(req.BrokerName, hardLimits.NameLength); err != nil {
		return wire.AlterSyncStateSetResponse{}, nil, err
	}
	r, ss, ok := s.get(req.BrokerName)
	if !ok {
		return wire.AlterSyncStateSetResponse{}, nil, &domainError{Kind: errAlterSyncStateSetFailed, Remark: remarkMetadataNotExist}
	}
	newSet := wire.NormalizeIDs(req.SyncStateSet.SyncStateSet)
	if err := checkAlterFencing(req, ss, newSet); err != nil {
		return wire.AlterSyncStateSetResponse{}, nil, err
	}
	if err := checkAlterReplicas(r, ss, newSet, live); err != nil {
		return wire.AlterSyncStateSetResponse{}, nil, err
	}
	epoch := ss.SyncStateSetEpoch + 1
	resp := wire.AlterSyncStateSetResponse{NewSyncStateSetEpoch: epoch,
		SyncStateSet: &wire.SyncStateSet{SyncStateSet: newSet, SyncStateSetEpoch: epoch}}
	return resp, []event{alterSyncStateSetEvent{BrokerName: req.BrokerName, NewSyncStateSet: newSet,
		Fence: fenceOf(ss)}}, nil
}

// checkAlterFencing runs checks 2-5.
func checkAlterFencing(req wire.AlterSyncStateSetRequest, ss *syncStateInfo, newSet []int64) error {
	if sameIDSet(wire.NormalizeIDs(ss.SyncStateSet), newSet) {
		return &domainError{Kind: errAlterSyncStateSetFailed, Remark: remarkSameSyncStateSet}
	}
	if ss.MasterBrokerID == wire.NoBrokerID || ss.MasterBrokerID != req.MasterBrokerID {
		return newError(errInvalidMaster,
			"Rejecting alter syncStateSet request because the current leader is:{%s}, not {%s}",
			idString(ss.MasterBrokerID), idString(req.MasterBrokerID))
	}
	if req.MasterEpoch != ss.MasterEpoch {
		return newError(errFencedMasterEpoch,
			"Rejecting alter syncStateSet request because the current master epoch is:{%d}, not {%d}",
			ss.MasterEpoch, req.MasterEpoch)
	}
	if req.SyncStateSet.SyncStateSetEpoch != ss.SyncStateSetEpoch {
		return newError(errFencedSyncStateSetEpoch,
			"Rejecting alter syncStateSet request because the current syncStateSet epoch is:{%d}, not {%d}",
			ss.SyncStateSetEpoch, req.SyncStateSet.SyncStateSetEpoch)
	}
	return nil
}

// checkAlterReplicas runs checks 6-7. Liveness uses the stored cluster name.
func checkAlterReplicas(r *replicaInfo, ss *syncStateInfo, newSet []int64, live liveness.Reader) error {
	for _, id := range newSet {
		if _, ok := r.Brokers[id]; !ok {
			return newError(errInvalidReplicas,
				"Rejecting alter syncStateSet request because the replicas {%d} don't exist", id)
		}
		if !live.IsActive(r.ClusterName, r.BrokerName, id) {
			return newError(errBrokerNotAlive,
				"Rejecting alter syncStateSet request because the replicas {%d} don't alive", id)
		}
	}
	if !containsID(newSet, ss.MasterBrokerID) {
		return newError(errAlterSyncStateSetFailed,
			"Rejecting alter syncStateSet request because the newSyncStateSet don't contains origin leader {%d}",
			ss.MasterBrokerID)
	}
	return nil
}

// response is what a command builder hands the processor: the custom
// header as ext fields (nil = no custom header at all) and the body (nil =
// none). The wire package's response types implement it.
type response interface {
	ExtFields() map[string]string
	BodyBytes() []byte
}

// buildFunc computes a leader-side command from the current state: the
// response, the events to append and the domain error (if any).
type buildFunc func(s *state) (response, []event, error)
