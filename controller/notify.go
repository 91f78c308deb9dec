//go:build embedded_controller

package controller

import "slices"

// RequestCodeNotifyBrokerRoleChanged is NOTIFY_BROKER_ROLE_CHANGED, sent
// oneway by the controller to brokers after a code-0 election (§3.5).
const RequestCodeNotifyBrokerRoleChanged int32 = 1008

// NotifyTarget is one broker to notify.
type NotifyTarget struct {
	BrokerID int64
	Address  string
}

// RoleChangeNotifyEntry is built from a successful election reply; it is
// the 1008 request (header + SyncStateSet body) sent to each alive member.
type RoleChangeNotifyEntry struct {
	Group             BrokerMemberGroup
	MasterAddress     string
	MasterBrokerID    int64
	MasterEpoch       int32
	SyncStateSetEpoch int32
	SyncStateSet      []int64
}

// NewRoleChangeNotifyEntry converts a code-0 ElectMasterResponse. ok is false
// when there is nothing to notify (no member group or no master id).
func NewRoleChangeNotifyEntry(resp ElectMasterResponse) (RoleChangeNotifyEntry, bool) {
	if resp.Body == nil || resp.Body.BrokerMemberGroup == nil || resp.MasterBrokerID == nil {
		return RoleChangeNotifyEntry{}, false
	}
	e := RoleChangeNotifyEntry{Group: *resp.Body.BrokerMemberGroup, MasterBrokerID: *resp.MasterBrokerID,
		MasterAddress: orDefault(resp.MasterAddress, ""), MasterEpoch: orDefault(resp.MasterEpoch, 0),
		SyncStateSetEpoch: orDefault(resp.SyncStateSetEpoch, 0), SyncStateSet: normalizeIDs(resp.Body.SyncStateSet)}
	return e, true
}

// Targets returns the members whose heartbeat is active on this node,
// ascending by id.
func (e RoleChangeNotifyEntry) Targets(live Liveness) []NotifyTarget {
	ids := make([]int64, 0, len(e.Group.BrokerAddrs))
	for id := range e.Group.BrokerAddrs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []NotifyTarget
	for _, id := range ids {
		if live.IsActive(e.Group.Cluster, e.Group.BrokerName, id) {
			out = append(out, NotifyTarget{BrokerID: id, Address: e.Group.BrokerAddrs[id]})
		}
	}
	return out
}

// ExtFields is the NotifyBrokerRoleChangedRequestHeader.
func (e RoleChangeNotifyEntry) ExtFields() map[string]string {
	m := extMap{}
	m.str("masterAddress", e.MasterAddress)
	m.i32("masterEpoch", &e.MasterEpoch)
	m.i32("syncStateSetEpoch", &e.SyncStateSetEpoch)
	m.i64("masterBrokerId", &e.MasterBrokerID)
	return m
}

// BodyBytes is the SyncStateSet body of the 1008 request.
func (e RoleChangeNotifyEntry) BodyBytes() []byte {
	return SyncStateSet{SyncStateSet: e.SyncStateSet, SyncStateSetEpoch: e.SyncStateSetEpoch}.Encode()
}
