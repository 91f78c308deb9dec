package wire

import (
	"fmt"
	"strconv"
)

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
