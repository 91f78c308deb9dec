package acl

import (
	"fmt"

	"github.com/rmqgo/nameserver/remoting"
)

// Permission is what a request code needs and what a role grants; each
// level includes the ones below it.
type Permission uint8

// Permission levels.
const (
	// PermRead reads routes, cluster, KV and config.
	PermRead Permission = iota + 1
	// PermBroker is what a Java broker sends besides reads: registration,
	// unregistration, heartbeats, topic registration and its controller
	// codes.
	PermBroker
	// PermAdmin changes state an operator owns: KV, write permissions,
	// topic deletion, config, designated elections, metadata cleaning.
	PermAdmin
)

// String returns the role name of p ("read", "broker", "admin").
func (p Permission) String() string {
	switch p {
	case PermRead:
		return "read"
	case PermBroker:
		return "broker"
	case PermAdmin:
		return "admin"
	}
	return fmt.Sprintf("permission(%d)", uint8(p))
}

// ParseRole returns the Permission of a role name.
func ParseRole(s string) (Permission, bool) {
	for _, p := range []Permission{PermRead, PermBroker, PermAdmin} {
		if p.String() == s {
			return p, true
		}
	}
	return 0, false
}

// codePerms is the one table of the permission each request code the
// NameServer or the Controller serves needs; any other code needs admin
// (deny by default). Broker codes are those BrokerOuterAPI sends.
var codePerms = map[int32]Permission{
	// NameServer (NamesrvController's processors).
	remoting.GetKVConfig:                   PermRead,
	remoting.GetKVListByNamespace:          PermRead,
	remoting.GetRouteinfoByTopic:           PermRead,
	remoting.GetBrokerClusterInfo:          PermRead,
	remoting.GetAllTopicListFromNameserver: PermRead,
	remoting.GetTopicsByCluster:            PermRead,
	remoting.GetSystemTopicListFromNs:      PermRead,
	remoting.GetUnitTopicList:              PermRead,
	remoting.GetHasUnitSubTopicList:        PermRead,
	remoting.GetHasUnitSubUnunitTopicList:  PermRead,
	remoting.GetNamesrvConfig:              PermRead,
	remoting.GetBrokerMemberGroup:          PermRead,
	remoting.RegisterBroker:                PermBroker,
	remoting.UnregisterBroker:              PermBroker,
	remoting.BrokerHeartbeat:               PermBroker, // also the Controller's
	remoting.QueryDataVersion:              PermBroker, // refreshes the broker's liveness
	remoting.RegisterTopicInNamesrv:        PermBroker, // BrokerOuterAPI.registerSingleTopicAll
	remoting.PutKVConfig:                   PermAdmin,
	remoting.DeleteKVConfig:                PermAdmin,
	remoting.WipeWritePermOfBroker:         PermAdmin,
	remoting.AddWritePermOfBroker:          PermAdmin,
	remoting.DeleteTopicInNamesrv:          PermAdmin,
	remoting.UpdateNamesrvConfig:           PermAdmin,
	// Controller (ControllerRequestProcessor).
	remoting.ControllerGetReplicaInfo:    PermRead,
	remoting.ControllerGetMetadataInfo:   PermRead,
	remoting.ControllerGetSyncStateData:  PermRead,
	remoting.GetControllerConfig:         PermRead,
	remoting.ControllerAlterSyncStateSet: PermBroker,
	remoting.ControllerElectMaster:       PermBroker, // PermAdmin with designateElect=true
	remoting.ControllerRegisterBroker:    PermBroker,
	remoting.ControllerGetNextBrokerID:   PermBroker,
	remoting.ControllerApplyBrokerID:     PermBroker,
	remoting.UpdateControllerConfig:      PermAdmin,
	remoting.CleanBrokerData:             PermAdmin,
}

// Required returns the permission req needs. An election that designates
// its master (ElectMasterRequestHeader.designateElect=true, mqadmin's
// electMaster) needs admin; a broker's own election (ofBrokerTrigger) needs
// broker.
func Required(req *remoting.Command) Permission {
	p, ok := codePerms[req.Code]
	if !ok {
		return PermAdmin
	}
	if req.Code == remoting.ControllerElectMaster {
		if designate, _ := req.ExtBool("designateElect"); designate {
			return PermAdmin
		}
	}
	return p
}
