package metrics

import (
	"strconv"

	"github.com/rmqgo/nameserver/remoting"
)

// Label values used for out-of-table inputs, so that label cardinality
// stays bounded whatever peers send.
const (
	// LabelOther replaces an unknown request code, response code, trigger
	// or reason.
	LabelOther = "other"
	// LabelNone is the response code of a request answered with nothing
	// (oneway, or a handler that returned no response).
	LabelNone = "none"
)

// requestCodes are the request codes of the NameServer and the
// Controller; any other code is labelled LabelOther.
var requestCodes = []int32{
	remoting.PutKVConfig, remoting.GetKVConfig, remoting.DeleteKVConfig,
	remoting.RegisterBroker, remoting.UnregisterBroker, remoting.GetRouteinfoByTopic,
	remoting.GetBrokerClusterInfo, remoting.WipeWritePermOfBroker,
	remoting.GetAllTopicListFromNameserver, remoting.DeleteTopicInNamesrv,
	remoting.RegisterTopicInNamesrv, remoting.GetKVListByNamespace,
	remoting.GetTopicsByCluster, remoting.GetSystemTopicListFromNs,
	remoting.GetUnitTopicList, remoting.GetHasUnitSubTopicList,
	remoting.GetHasUnitSubUnunitTopicList, remoting.UpdateNamesrvConfig,
	remoting.GetNamesrvConfig, remoting.QueryDataVersion, remoting.AddWritePermOfBroker,
	remoting.GetBrokerMemberGroup, remoting.BrokerHeartbeat, remoting.NotifyMinBrokerIDChange,
	remoting.ControllerAlterSyncStateSet, remoting.ControllerElectMaster,
	remoting.ControllerRegisterBroker, remoting.ControllerGetReplicaInfo,
	remoting.ControllerGetMetadataInfo, remoting.ControllerGetSyncStateData,
	remoting.GetBrokerEpochCache, remoting.NotifyBrokerRoleChanged,
	remoting.UpdateControllerConfig, remoting.GetControllerConfig, remoting.CleanBrokerData,
	remoting.ControllerGetNextBrokerID, remoting.ControllerApplyBrokerID,
}

// responseCodes are the response codes the NameServer and the Controller
// answer with.
var responseCodes = []int32{
	remoting.Success, remoting.SystemError, remoting.SystemBusy,
	remoting.RequestCodeNotSupported, remoting.NoPermission, remoting.TopicNotExist,
	remoting.QueryNotFound, remoting.GoAway,
	remoting.ControllerFencedMasterEpoch, remoting.ControllerFencedSyncStateSetEpoch,
	remoting.ControllerInvalidMaster, remoting.ControllerInvalidReplicas,
	remoting.ControllerMasterNotAvailable, remoting.ControllerInvalidRequest,
	remoting.ControllerBrokerNotAlive, remoting.ControllerNotLeader,
	remoting.ControllerBrokerMetadataNotExist, remoting.ControllerInvalidCleanBrokerMetadata,
	remoting.ControllerBrokerNeedToBeRegistered, remoting.ControllerMasterStillExist,
	remoting.ControllerElectMasterFailed, remoting.ControllerAlterSyncStateSetFailed,
	remoting.ControllerBrokerIDInvalid, remoting.ControllerJRaftInternalError,
	remoting.ControllerBrokerLiveInfoNotExists,
}

var (
	requestLabels  = codeLabels(requestCodes)
	responseLabels = codeLabels(responseCodes)
)

func codeLabels(codes []int32) map[int32]string {
	m := make(map[int32]string, len(codes))
	for _, c := range codes {
		m[c] = strconv.Itoa(int(c))
	}
	return m
}

// RequestCodeLabel is the label value of a request code: its decimal form
// when known, LabelOther otherwise.
func RequestCodeLabel(code int32) string { return lookupLabel(requestLabels, code) }

// ResponseCodeLabel is the label value of a response code: its decimal
// form when known, LabelNone for -1 (no response), LabelOther otherwise.
func ResponseCodeLabel(code int32) string {
	if code == -1 {
		return LabelNone
	}
	return lookupLabel(responseLabels, code)
}

func lookupLabel(m map[int32]string, code int32) string {
	if s, ok := m[code]; ok {
		return s
	}
	return LabelOther
}

// boundedLabel returns v when it is one of allowed, LabelOther otherwise.
func boundedLabel(v string, allowed ...string) string {
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	return LabelOther
}
