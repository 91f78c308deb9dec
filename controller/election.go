//go:build embedded_controller

package controller

import (
	"fmt"
	"math"
	"slices"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/wire"
)

// electOptions are the runtime-configurable election settings (read per use,
// so a config update takes effect at once).
type electOptions struct {
	// EnableElectUncleanMaster allows a second pass over all registered
	// replicas when no sync-state member can be elected.
	EnableElectUncleanMaster bool
	// Policy chooses the master; nil means defaultElectPolicy.
	Policy electPolicy
}

// brokerElectRequest is the request a broker sends for itself (ofBrokerTrigger).
func brokerElectRequest(clusterName, brokerName string, brokerID int64) wire.ElectMasterRequest {
	return wire.ElectMasterRequest{ClusterName: clusterName, BrokerName: brokerName, BrokerID: brokerID}
}

// adminElectRequest is mqadmin electMaster designating brokerID (ofAdminTrigger).
func adminElectRequest(clusterName, brokerName string, brokerID int64) wire.ElectMasterRequest {
	return wire.ElectMasterRequest{ClusterName: clusterName, BrokerName: brokerName, BrokerID: brokerID, DesignateElect: true}
}

// controllerElectRequest is the in-process request of the leader after a
// master became inactive or the inactive-master scan found one (ofControllerTrigger).
func controllerElectRequest(brokerName string) wire.ElectMasterRequest {
	return wire.ElectMasterRequest{BrokerName: brokerName, BrokerID: wire.NoBrokerID}
}

// isControllerTrigger reports whether the request came from the controller
// itself (brokerId null or -1). Only such a request records a failed
// election in the log.
func isControllerTrigger(r wire.ElectMasterRequest) bool { return r.BrokerID == wire.NoBrokerID }

// ElectMaster handles 1002 from every trigger
// (ReplicasInfoManager.electMaster, docs/controller.md section 3.2):
//  1. unknown set → 2010;
//  2. first election (masterEpoch 0): the requesting id wins outright — but,
//     unlike Java, only if it is a registered replica; otherwise the policy
//     decides (Java would elect an id without an address);
//  3. otherwise the policy elects from the sync-state set (then from all
//     replicas when unclean election is on), preferring the designated
//     broker of an admin request;
//  4. the current master again → 2011 with the current state, no event;
//  5. a new master → code 0, epochs +1, body with the member group and {new};
//  6. nobody: a controller trigger records "no master" (masterEpoch+1) and
//     answers 2004 — unlike Java, only when the set has a master to clear;
//     without one it answers 2004 with no event; a broker or admin trigger
//     answers 2012 with no event.
//
// Unlike Java, a set whose master or sync-state-set epoch has reached
// MaxInt32 answers 2012 with no event instead of wrapping the epoch.
func (s *state) ElectMaster(req wire.ElectMasterRequest, live liveness.Reader, opts electOptions) (wire.ElectMasterResponse, []event, error) {
	if _, err := s.parseSetName(req.BrokerName, hardLimits.NameLength); err != nil {
		return wire.ElectMasterResponse{}, nil, err
	}
	r, ss, ok := s.get(req.BrokerName)
	if !ok {
		return wire.ElectMasterResponse{}, nil, &domainError{Kind: errBrokerNeedToBeRegistered, Remark: remarkBrokerNotRegisteredForElect}
	}
	if ss.MasterEpoch == math.MaxInt32 || ss.SyncStateSetEpoch == math.MaxInt32 { // ours: Java's ++ would wrap
		return wire.ElectMasterResponse{}, nil, newError(errElectMasterFailed, "elect master of %s: %s", req.BrokerName, remarkEpochExhausted)
	}
	newMaster := s.chooseMaster(r, ss, req, live, opts)
	switch {
	case newMaster != wire.NoBrokerID && newMaster == ss.MasterBrokerID:
		return masterStillExists(r, ss)
	case newMaster != wire.NoBrokerID:
		return masterElected(r, ss, newMaster)
	case isControllerTrigger(req) && ss.MasterBrokerID == wire.NoBrokerID:
		// ours: nothing to record (Java appends one more "no master" entry,
		// a master epoch step anyone could repeat until MaxInt32)
		return wire.ElectMasterResponse{}, nil, &domainError{Kind: errMasterNotAvailable, Remark: remarkMasterNotAvailable}
	case isControllerTrigger(req):
		ev := electMasterEvent{NewMasterElected: false, BrokerName: req.BrokerName, NewMasterBrokerID: wire.NoBrokerID,
			Fence: fenceOf(ss)}
		return wire.ElectMasterResponse{}, []event{ev}, &domainError{Kind: errMasterNotAvailable, Remark: remarkMasterNotAvailable}
	default:
		return wire.ElectMasterResponse{}, nil, &domainError{Kind: errElectMasterFailed, Remark: remarkElectFailed}
	}
}

// chooseMaster returns the elected id or wire.NoBrokerID.
func (s *state) chooseMaster(r *replicaInfo, ss *syncStateInfo, req wire.ElectMasterRequest, live liveness.Reader, opts electOptions) int64 {
	if ss.isFresh() && req.BrokerID != wire.NoBrokerID {
		if _, registered := r.Brokers[req.BrokerID]; registered {
			return req.BrokerID
		}
	}
	in := electInput{ClusterName: r.ClusterName, BrokerName: r.BrokerName, SyncStateSet: wire.NormalizeIDs(ss.SyncStateSet),
		OldMaster: ss.MasterBrokerID, Prefer: wire.NoBrokerID}
	if opts.EnableElectUncleanMaster {
		in.AllReplicas = r.sortedIDs()
	}
	if req.DesignateElect {
		in.Prefer = req.BrokerID
	}
	policy := opts.Policy
	if policy == nil {
		policy = defaultElectPolicy{}
	}
	return policy.Elect(in, live)
}

func masterStillExists(r *replicaInfo, ss *syncStateInfo) (wire.ElectMasterResponse, []event, error) {
	resp := wire.ElectMasterResponse{MasterBrokerID: ss.masterPtr(), MasterAddress: r.addressPtr(ss.MasterBrokerID),
		MasterEpoch: ptr(ss.MasterEpoch), SyncStateSetEpoch: ptr(ss.SyncStateSetEpoch),
		Body: &wire.ElectMasterResponseBody{SyncStateSet: wire.NormalizeIDs(ss.SyncStateSet)}}
	return resp, nil, newError(errMasterStillExist,
		"The old master %d is still alive, not need to elect new master for broker %s", ss.MasterBrokerID, r.BrokerName)
}

func masterElected(r *replicaInfo, ss *syncStateInfo, id int64) (wire.ElectMasterResponse, []event, error) {
	group := &wire.BrokerMemberGroup{Cluster: r.ClusterName, BrokerName: r.BrokerName, BrokerAddrs: map[int64]string{}}
	for bid, info := range r.Brokers {
		group.BrokerAddrs[bid] = info.Address
	}
	resp := wire.ElectMasterResponse{MasterBrokerID: ptr(id), MasterAddress: r.addressPtr(id),
		MasterEpoch: ptr(ss.MasterEpoch + 1), SyncStateSetEpoch: ptr(ss.SyncStateSetEpoch + 1),
		Body: &wire.ElectMasterResponseBody{BrokerMemberGroup: group, SyncStateSet: []int64{id}}}
	return resp, []event{electMasterEvent{NewMasterElected: true, BrokerName: r.BrokerName, NewMasterBrokerID: id,
		Fence: fenceOf(ss)}}, nil
}

// NeedsElectionOnInactive is the leader's check for an inactive event (the inactive-broker trigger):
// only the loss of the current master triggers an election.
func (s *state) NeedsElectionOnInactive(ev liveness.Inactive) bool {
	return s.IsMaster(ev.BrokerName, ev.BrokerID)
}

// idString renders a nullable id the way Java's %s renders a Long.
func idString(id int64) string {
	if id == wire.NoBrokerID {
		return "null"
	}
	return fmt.Sprint(id)
}

// notifyTarget is one broker to notify.
type notifyTarget struct {
	BrokerID int64
	Address  string
}

// roleChangeNotifyEntry is built from a successful election reply; it is
// the 1008 request (header + SyncStateSet body) sent to each alive member.
type roleChangeNotifyEntry struct {
	Group             wire.BrokerMemberGroup
	MasterAddress     string
	MasterBrokerID    int64
	MasterEpoch       int32
	SyncStateSetEpoch int32
	SyncStateSet      []int64
}

// newRoleChangeNotifyEntry converts a code-0 ElectMasterResponse. ok is false
// when there is nothing to notify (no member group or no master id).
func newRoleChangeNotifyEntry(resp wire.ElectMasterResponse) (roleChangeNotifyEntry, bool) {
	if resp.Body == nil || resp.Body.BrokerMemberGroup == nil || resp.MasterBrokerID == nil {
		return roleChangeNotifyEntry{}, false
	}
	e := roleChangeNotifyEntry{Group: *resp.Body.BrokerMemberGroup, MasterBrokerID: *resp.MasterBrokerID,
		MasterAddress: liveness.OrDefault(resp.MasterAddress, ""), MasterEpoch: liveness.OrDefault(resp.MasterEpoch, 0),
		SyncStateSetEpoch: liveness.OrDefault(resp.SyncStateSetEpoch, 0), SyncStateSet: wire.NormalizeIDs(resp.Body.SyncStateSet)}
	return e, true
}

// Targets returns the members whose heartbeat is active on this node,
// ascending by id.
func (e roleChangeNotifyEntry) Targets(live liveness.Reader) []notifyTarget {
	ids := make([]int64, 0, len(e.Group.BrokerAddrs))
	for id := range e.Group.BrokerAddrs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []notifyTarget
	for _, id := range ids {
		if live.IsActive(e.Group.Cluster, e.Group.BrokerName, id) {
			out = append(out, notifyTarget{BrokerID: id, Address: e.Group.BrokerAddrs[id]})
		}
	}
	return out
}

// ExtFields is the NotifyBrokerRoleChangedRequestHeader.
func (e roleChangeNotifyEntry) ExtFields() map[string]string {
	return wire.NotifyBrokerRoleChangedRequest{MasterAddress: e.MasterAddress, MasterEpoch: e.MasterEpoch,
		SyncStateSetEpoch: e.SyncStateSetEpoch, MasterBrokerID: e.MasterBrokerID}.ExtFields()
}

// BodyBytes is the SyncStateSet body of the 1008 request.
func (e roleChangeNotifyEntry) BodyBytes() []byte {
	return wire.SyncStateSet{SyncStateSet: e.SyncStateSet, SyncStateSetEpoch: e.SyncStateSetEpoch}.Encode()
}
