package wire

import (
	"maps"
	"slices"

	"github.com/rmqgo/nameserver/internal/javahash"
)

// Perm bits of a queue (PermName.java).
const (
	PermPriority int32 = 8
	PermRead     int32 = 4
	PermWrite    int32 = 2
	PermInherit  int32 = 1
)

// MasterID is the broker id of a master (MixAll.MASTER_ID).
const MasterID int64 = 0

// DataVersion is a broker's topic-config version. Equal means all
// fields are equal: a null counter (Java's AtomicLong set to null)
// equals only a null counter, as in DataVersion.equals.
type DataVersion struct {
	Counter      int64
	StateVersion int64
	Timestamp    int64
	CounterNull  bool // counter is null (Counter is then 0)
}

// TopicConfig is one topic as a broker registers it (TopicConfig.java).
type TopicConfig struct {
	TopicName      string
	ReadQueueNums  int32
	WriteQueueNums int32
	Perm           int32
	// Pos is the place of the entry's key in the body (RegisterBody.Keys),
	// set by the decoders; it is not part of the topic.
	Pos             int32
	TopicFilterType string // "SINGLE_TAG" or "MULTI_TAG"
	TopicSysFlag    int32
	Order           bool
	NameNull        bool // topicName is null (absent): no topic is created for it; in Order's padding (64 bytes)
	Attributes      map[string]string
}

// TopicQueueMappingInfo is a static-topic mapping (statictopic/TopicQueueMappingInfo.java).
type TopicQueueMappingInfo struct {
	Topic       string
	Scope       string
	TotalQueues int32
	Bname       string
	Epoch       int64
	Dirty       bool
	CurrIDMap   map[int32]int32 // nil when null (Java's default is empty)
	ScopeNull   bool            // scope is null (omitted)
}

// QueueData is one broker's queues of a topic (route/QueueData.java).
type QueueData struct {
	BrokerName     string
	ReadQueueNums  int32
	WriteQueueNums int32
	Perm           int32
	TopicSysFlag   int32
}

// BrokerData is a broker group: its addresses by broker id (route/BrokerData.java).
type BrokerData struct {
	Cluster     string
	BrokerName  string
	BrokerAddrs map[int64]string // never nil in published data
	// AddrOrder lists the ids of BrokerAddrs in the iteration order of
	// the Java HashMap they were read from (nil: unknown).
	AddrOrder          []int64
	ZoneName           string // "" = null (omitted)
	EnableActingMaster bool
}

// CopyOrder returns the ids of a copy of a map iterated in order (new
// HashMap<>(m) or putAll into an empty HashMap): a table sized for its
// entries, filled in that order.
func CopyOrder(order []int64) []int64 {
	return javahash.InsertionOrder(order, javahash.HashMapCopy, javahash.LongHash)
}

// TopicRouteData is what GET_ROUTEINFO_BY_TOPIC answers (route/TopicRouteData.java).
// Values published in a snapshot are immutable: never modify them.
type TopicRouteData struct {
	OrderTopicConf            string // "" = null (omitted)
	QueueDatas                []QueueData
	BrokerDatas               []BrokerData
	FilterServerTable         map[string][]string               // never nil in published data
	TopicQueueMappingByBroker map[string]*TopicQueueMappingInfo // nil = omitted
}

// ClusterInfo is what GET_BROKER_CLUSTER_INFO answers (body/ClusterInfo.java).
type ClusterInfo struct {
	BrokerAddrTable  map[string]BrokerData
	ClusterAddrTable map[string][]string
}

// TopicList is a list of topic names, with an optional broker address
// (body/TopicList.java).
type TopicList struct {
	TopicList  []string
	BrokerAddr string // "" = omitted
}

// BrokerMemberGroup is what GET_BROKER_MEMBER_GROUP answers inside
// {"brokerMemberGroup": ...} (body/BrokerMemberGroup.java).
type BrokerMemberGroup struct {
	Cluster     string
	BrokerName  string
	BrokerAddrs map[int64]string
	AddrOrder   []int64 // ids in the order of the group's Java map (nil: unknown)
}

// RegisterBody is the decoded REGISTER_BROKER body (RegisterBrokerBody.java,
// or TopicConfigSerializeWrapper for version < 37).
type RegisterBody struct {
	DataVersion DataVersion
	// DataVersionUnstamped reports a body that sets no timestamp for its
	// DataVersion (no dataVersion, null, or one without timestamp). Java's
	// DataVersion then carries the time the body was decoded and equals no
	// stored one: RegisterBroker treats the registration as a new version
	// and stamps it with the time. Set by the decoders; false for an empty
	// body (Java's {0,0,0}) and for a body built in memory.
	DataVersionUnstamped bool
	// DataVersionNull reports a body whose DataVersion is null
	// ("dataVersion":null, or an empty or null DataVersion section of the
	// compressed form): Java keeps the null, in the live entry too. It
	// equals no version (DataVersionUnstamped is set as well), 322 then
	// answers without a stored version, and a takeover check of the
	// broker id (step 6) between it and a live holder throws.
	DataVersionNull bool
	// TopicTableNull reports a null topic table ("topicConfigTable":null,
	// or a null wrapper): Java's registerBroker then skips step 10 and
	// throws at step 7 for an id not yet in the group. WrapperNull reports
	// a null wrapper ("topicConfigSerializeWrapper":null, or a legacy body
	// null): its version is a new DataVersion() (DataVersionUnstamped) and
	// a takeover check of the broker id (step 6) throws.
	TopicTableNull, WrapperNull bool
	// TopicConfigs keeps the map keys of topicConfigTable; the QueueData is
	// keyed by TopicConfig.TopicName, deletion-by-registration by map key.
	TopicConfigs map[string]TopicConfig
	// Keys lists the keys of TopicConfigs in the order the body first
	// gave them: Java's decoder puts them into its topicConfigTable in that
	// order, which decides the order new topics join topicQueueTable. Nil
	// (or not matching TopicConfigs) for a body built in memory: its keys
	// are then taken in name order.
	Keys             []string
	MappingInfos     map[string]*TopicQueueMappingInfo // topic -> info; may be nil
	FilterServerList []string                          // nil = absent (leave untouched)
	// TopicsDigest is DigestTopics(TopicConfigs), filled by the decoders while the
	// table is hot so that RegisterBroker need not walk it again; the zero
	// value means "not computed". Code that builds or changes TopicConfigs
	// leaves it zero (or recomputes it).
	TopicsDigest TopicsDigest
}

// KeyOrder returns the keys of the body's topic table in body order (Keys);
// for a body built in memory, whose Keys do not match its table, in name
// order (String.compareTo).
func (b *RegisterBody) KeyOrder() []string {
	if len(b.Keys) == len(b.TopicConfigs) {
		return b.Keys
	}
	keys := slices.Collect(maps.Keys(b.TopicConfigs))
	slices.SortFunc(keys, javahash.Compare)
	return keys
}
