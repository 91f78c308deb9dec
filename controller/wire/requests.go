package wire

import (
	"fmt"
	"strconv"
)

// Request and response shapes of the controller codes (docs/controller.md
// section 1.2). Field names follow the Java header fields; ExtFields gives
// the exact extFields map Java would send (null fields omitted; an empty
// string is treated as null) and BodyBytes the exact fastjson body.

// GetNextBrokerIDRequest is CONTROLLER_GET_NEXT_BROKER_ID (1012).
type GetNextBrokerIDRequest struct {
	ClusterName string
	BrokerName  string
}

// GetNextBrokerIDResponse is GetNextBrokerIdResponseHeader.
type GetNextBrokerIDResponse struct {
	ClusterName  string
	BrokerName   string
	NextBrokerID int64
}

// ApplyBrokerIDRequest is CONTROLLER_APPLY_BROKER_ID (1013).
type ApplyBrokerIDRequest struct {
	ClusterName       string
	BrokerName        string
	AppliedBrokerID   int64
	RegisterCheckCode string // "<brokerAddr>;<epochMillis>"
}

// ApplyBrokerIDResponse is ApplyBrokerIdResponseHeader (sent on errors too).
type ApplyBrokerIDResponse struct {
	ClusterName string
	BrokerName  string
}

// RegisterBrokerRequest is CONTROLLER_REGISTER_BROKER (1003).
type RegisterBrokerRequest struct {
	ClusterName   string
	BrokerName    string
	BrokerID      int64
	BrokerAddress string
	InvokeTime    int64
}

// RegisterBrokerResponse is RegisterBrokerToControllerResponseHeader plus the
// SyncStateSet body. The master fields are set only when an alive master exists.
type RegisterBrokerResponse struct {
	ClusterName       string
	BrokerName        string
	MasterBrokerID    *int64
	MasterAddress     *string
	MasterEpoch       *int32
	SyncStateSetEpoch *int32
	SyncStateSet      *SyncStateSet
}

// GetReplicaInfoRequest is CONTROLLER_GET_REPLICA_INFO (1004).
type GetReplicaInfoRequest struct {
	BrokerName string
}

// GetReplicaInfoResponse is GetReplicaInfoResponseHeader plus the SyncStateSet body.
type GetReplicaInfoResponse struct {
	MasterBrokerID *int64
	MasterAddress  *string
	MasterEpoch    *int32
	SyncStateSet   *SyncStateSet
}

// AlterSyncStateSetRequest is CONTROLLER_ALTER_SYNC_STATE_SET (1001): the
// header plus the SyncStateSet body (the sender's new set and its CURRENT epoch).
type AlterSyncStateSetRequest struct {
	BrokerName     string
	MasterBrokerID int64 // NoBrokerID when absent
	MasterEpoch    int32
	InvokeTime     int64
	SyncStateSet   SyncStateSet
}

// AlterSyncStateSetResponse is AlterSyncStateSetResponseHeader (always sent,
// 0 on errors) plus, on success, the new SyncStateSet body.
type AlterSyncStateSetResponse struct {
	NewSyncStateSetEpoch int32
	SyncStateSet         *SyncStateSet
}

// ElectMasterRequest is CONTROLLER_ELECT_MASTER (1002).
type ElectMasterRequest struct {
	ClusterName    string
	BrokerName     string
	BrokerID       int64 // NoBrokerID (-1) = controller trigger
	DesignateElect bool
	InvokeTime     int64
}

// ElectMasterResponse is ElectMasterResponseHeader plus ElectMasterResponseBody.
type ElectMasterResponse struct {
	MasterBrokerID    *int64
	MasterAddress     *string
	MasterEpoch       *int32
	SyncStateSetEpoch *int32
	Body              *ElectMasterResponseBody
}

// CleanBrokerDataRequest is CLEAN_BROKER_DATA (1011).
type CleanBrokerDataRequest struct {
	ClusterName                string
	BrokerName                 string
	BrokerControllerIDsToClean string // "1;2;3"
	IsCleanLivingBroker        bool
	InvokeTime                 int64
}

// CleanBrokerDataResponse is the (header-less, body-less) 1011 reply.
type CleanBrokerDataResponse struct{}

// GetSyncStateDataResponse is the 1006 reply: no header, a BrokerReplicasInfo body.
type GetSyncStateDataResponse struct {
	Info BrokerReplicasInfo
}

// BrokerHeartbeatRequest is BROKER_HEARTBEAT (904) on the controller port.
// Nil pointers are absent fields.
type BrokerHeartbeatRequest struct {
	ClusterName            string
	BrokerAddr             string
	BrokerName             string
	BrokerID               *int64
	Epoch                  *int32
	MaxOffset              *int64
	ConfirmOffset          *int64
	HeartbeatTimeoutMillis *int64
	ElectionPriority       *int32
}

// ExtFields implements the Controller's response.
func (r GetNextBrokerIDResponse) ExtFields() map[string]string {
	m := extMap{}
	m.names(r.ClusterName, r.BrokerName)
	m.i64("nextBrokerId", &r.NextBrokerID)
	return m
}

// ExtFields implements the Controller's response.
func (r ApplyBrokerIDResponse) ExtFields() map[string]string {
	m := extMap{}
	m.names(r.ClusterName, r.BrokerName)
	return m
}

// ExtFields implements the Controller's response.
func (r RegisterBrokerResponse) ExtFields() map[string]string {
	m := extMap{}
	m.names(r.ClusterName, r.BrokerName)
	m.master(r.MasterBrokerID, r.MasterAddress, r.MasterEpoch)
	m.i32("syncStateSetEpoch", r.SyncStateSetEpoch)
	return m
}

// ExtFields implements the Controller's response.
func (r GetReplicaInfoResponse) ExtFields() map[string]string {
	m := extMap{}
	m.master(r.MasterBrokerID, r.MasterAddress, r.MasterEpoch)
	return m
}

// ExtFields implements the Controller's response.
func (r AlterSyncStateSetResponse) ExtFields() map[string]string {
	m := extMap{}
	m.i32("newSyncStateSetEpoch", &r.NewSyncStateSetEpoch)
	return m
}

// ExtFields implements the Controller's response.
func (r ElectMasterResponse) ExtFields() map[string]string {
	m := extMap{}
	m.master(r.MasterBrokerID, r.MasterAddress, r.MasterEpoch)
	m.i32("syncStateSetEpoch", r.SyncStateSetEpoch)
	return m
}

// ExtFields implements the Controller's response (no custom header).
func (CleanBrokerDataResponse) ExtFields() map[string]string { return nil }

// ExtFields implements the Controller's response (no custom header).
func (GetSyncStateDataResponse) ExtFields() map[string]string { return nil }

// BodyBytes implements the Controller's response.
func (GetNextBrokerIDResponse) BodyBytes() []byte { return nil }

// BodyBytes implements the Controller's response.
func (ApplyBrokerIDResponse) BodyBytes() []byte { return nil }

// BodyBytes implements the Controller's response.
func (r RegisterBrokerResponse) BodyBytes() []byte { return r.SyncStateSet.encodeOrNil() }

// BodyBytes implements the Controller's response.
func (r GetReplicaInfoResponse) BodyBytes() []byte { return r.SyncStateSet.encodeOrNil() }

// BodyBytes implements the Controller's response.
func (r AlterSyncStateSetResponse) BodyBytes() []byte { return r.SyncStateSet.encodeOrNil() }

// BodyBytes implements the Controller's response.
func (r ElectMasterResponse) BodyBytes() []byte {
	if r.Body == nil {
		return nil
	}
	return r.Body.Encode()
}

// BodyBytes implements the Controller's response.
func (CleanBrokerDataResponse) BodyBytes() []byte { return nil }

// BodyBytes implements the Controller's response.
func (r GetSyncStateDataResponse) BodyBytes() []byte { return r.Info.Encode() }

// NotifyBrokerRoleChangedRequest is NotifyBrokerRoleChangedRequestHeader,
// the header of the 1008 request the Controller sends to brokers.
type NotifyBrokerRoleChangedRequest struct {
	MasterAddress     string
	MasterEpoch       int32
	SyncStateSetEpoch int32
	MasterBrokerID    int64
}

// ExtFields returns the header's ext fields (an empty address is omitted).
func (r NotifyBrokerRoleChangedRequest) ExtFields() map[string]string {
	m := extMap{}
	m.str("masterAddress", r.MasterAddress)
	m.i32("masterEpoch", &r.MasterEpoch)
	m.i32("syncStateSetEpoch", &r.SyncStateSetEpoch)
	m.i64("masterBrokerId", &r.MasterBrokerID)
	return m
}

// The client side of the wire format: what admin tools send and read.

// ExtFields returns the ElectMasterRequestHeader as a client sends it
// (mqadmin electMaster): empty names are omitted, the rest always written.
func (r ElectMasterRequest) ExtFields() map[string]string {
	m := extMap{}
	m.names(r.ClusterName, r.BrokerName)
	m.i64("brokerId", &r.BrokerID)
	m["designateElect"] = strconv.FormatBool(r.DesignateElect)
	m.i64("invokeTime", &r.InvokeTime)
	return m
}

// ExtFields returns the CleanBrokerDataRequestHeader as a client sends it
// (mqadmin cleanBrokerMetadata): empty strings are omitted.
func (r CleanBrokerDataRequest) ExtFields() map[string]string {
	m := extMap{}
	m.names(r.ClusterName, r.BrokerName)
	m.str("brokerControllerIdsToClean", r.BrokerControllerIDsToClean)
	m["isCleanLivingBroker"] = strconv.FormatBool(r.IsCleanLivingBroker)
	m.i64("invokeTime", &r.InvokeTime)
	return m
}

// String is Java's ReplicaIdentity.toString.
func (r ReplicaIdentity) String() string {
	return fmt.Sprintf("ReplicaIdentity{brokerName='%s', brokerId=%d, brokerAddress='%s', alive=%t}",
		r.BrokerName, r.BrokerID, r.BrokerAddress, r.Alive)
}

// HasMaster reports whether the set has a master (an id and an address).
func (ri ReplicasInfo) HasMaster() bool {
	return ri.MasterBrokerID != nil && ri.MasterAddress != nil && *ri.MasterAddress != ""
}
