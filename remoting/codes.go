package remoting

// Request codes served by the NameServer (RequestCode.java).
const (
	PutKVConfig                   int32 = 100
	GetKVConfig                   int32 = 101
	DeleteKVConfig                int32 = 102
	RegisterBroker                int32 = 103
	UnregisterBroker              int32 = 104
	GetRouteinfoByTopic           int32 = 105
	GetBrokerClusterInfo          int32 = 106
	WipeWritePermOfBroker         int32 = 205
	GetAllTopicListFromNameserver int32 = 206
	DeleteTopicInNamesrv          int32 = 216
	RegisterTopicInNamesrv        int32 = 217
	GetKVListByNamespace          int32 = 219
	GetTopicsByCluster            int32 = 224
	GetSystemTopicListFromNs      int32 = 304
	GetUnitTopicList              int32 = 311
	GetHasUnitSubTopicList        int32 = 312
	GetHasUnitSubUnunitTopicList  int32 = 313
	UpdateNamesrvConfig           int32 = 318
	GetNamesrvConfig              int32 = 319
	QueryDataVersion              int32 = 322
	AddWritePermOfBroker          int32 = 327
	GetBrokerMemberGroup          int32 = 901
	BrokerHeartbeat               int32 = 904
	// NotifyMinBrokerIDChange is sent by the NameServer to brokers (oneway).
	NotifyMinBrokerIDChange int32 = 905
)

// Request codes of the Controller (RequestCode.java). 1014-1018 exist only
// inside the JRaft controller's log and never travel between processes.
const (
	ControllerAlterSyncStateSet     int32 = 1001
	ControllerElectMaster           int32 = 1002
	ControllerRegisterBroker        int32 = 1003
	ControllerGetReplicaInfo        int32 = 1004
	ControllerGetMetadataInfo       int32 = 1005
	ControllerGetSyncStateData      int32 = 1006
	GetBrokerEpochCache             int32 = 1007
	NotifyBrokerRoleChanged         int32 = 1008
	UpdateControllerConfig          int32 = 1009
	GetControllerConfig             int32 = 1010
	CleanBrokerData                 int32 = 1011
	ControllerGetNextBrokerID       int32 = 1012
	ControllerApplyBrokerID         int32 = 1013
	BrokerCloseChannelRequest       int32 = 1014
	CheckNotActiveBrokerRequest     int32 = 1015
	GetBrokerLiveInfoRequest        int32 = 1016
	GetSyncStateDataRequest         int32 = 1017
	RaftBrokerHeartBeatEventRequest int32 = 1018
)

// Response codes (RemotingSysResponseCode.java, ResponseCode.java).
const (
	Success                 int32 = 0
	SystemError             int32 = 1
	SystemBusy              int32 = 2
	RequestCodeNotSupported int32 = 3
	NoPermission            int32 = 16
	TopicNotExist           int32 = 17
	QueryNotFound           int32 = 22
	GoAway                  int32 = 1500
)

// Controller response codes (ResponseCode.java).
const (
	ControllerFencedMasterEpoch          int32 = 2000
	ControllerFencedSyncStateSetEpoch    int32 = 2001
	ControllerInvalidMaster              int32 = 2002
	ControllerInvalidReplicas            int32 = 2003
	ControllerMasterNotAvailable         int32 = 2004
	ControllerInvalidRequest             int32 = 2005
	ControllerBrokerNotAlive             int32 = 2006
	ControllerNotLeader                  int32 = 2007
	ControllerBrokerMetadataNotExist     int32 = 2008
	ControllerInvalidCleanBrokerMetadata int32 = 2009
	ControllerBrokerNeedToBeRegistered   int32 = 2010
	ControllerMasterStillExist           int32 = 2011
	ControllerElectMasterFailed          int32 = 2012
	ControllerAlterSyncStateSetFailed    int32 = 2013
	ControllerBrokerIDInvalid            int32 = 2014
	ControllerJRaftInternalError         int32 = 2015
	ControllerBrokerLiveInfoNotExists    int32 = 2016
)

// CurrentVersion is MQVersion.CURRENT_VERSION of RocketMQ 5.3.3 (V5_3_3),
// the version Java 5.3 peers put on every command they send.
const CurrentVersion int32 = 479

// SerializeType is the header encoding, the high byte of the header word.
type SerializeType uint8

// Header encodings (SerializeType.java).
const (
	SerializeJSON     SerializeType = 0
	SerializeRocketMQ SerializeType = 1
)

// String returns the Java enum name of t.
func (t SerializeType) String() string {
	switch t {
	case SerializeJSON:
		return "JSON"
	case SerializeRocketMQ:
		return "ROCKETMQ"
	}
	return "UNKNOWN"
}

// Language names as they travel in JSON headers (LanguageCode.java).
const (
	LanguageJava = "JAVA"
	LanguageGo   = "GO"
)

// languageNames is LanguageCode.java: the index is the code.
var languageNames = [...]string{
	"JAVA", "CPP", "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY",
	"OTHER", "HTTP", "GO", "PHP", "OMS", "RUST", "NODE_JS",
}

// languageOther is the code written for a language this table lacks.
const languageOther = 7

// LanguageName returns the name of a language code, "" if unknown (Java
// decodes an unknown code as null).
func LanguageName(code int) string {
	if code < 0 || code >= len(languageNames) {
		return ""
	}
	return languageNames[code]
}

// LanguageCode returns the code of a language name and whether it is known.
func LanguageCode(name string) (byte, bool) {
	for i, n := range languageNames {
		if n == name {
			return byte(i), true
		}
	}
	return languageOther, false
}

// internLanguage returns a constant string equal to b when b names a known
// language, so decoding the common names does not allocate.
func internLanguage(b []byte) string {
	for _, n := range languageNames {
		if string(b) == n {
			return n
		}
	}
	return string(b)
}
