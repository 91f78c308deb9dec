package acl

import (
	"github.com/rmqgo/nameserver/internal/aclfile"
	"github.com/rmqgo/nameserver/remoting"
)

// Permission is what a request code needs and what a role grants
// (aclfile.Permission: the accounts file names the roles).
type Permission = aclfile.Permission

// Permission levels.
const (
	PermRead   = aclfile.PermRead
	PermBroker = aclfile.PermBroker
	PermAdmin  = aclfile.PermAdmin
)

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
