package statuspage

import "time"

// Listener is one bound listener of this node.
type Listener struct {
	Name, Addr string
}

// Broker is one live broker of the NameServer's brokerLiveTable.
type Broker struct {
	Cluster, Name, Addr string
	ID                  int64
	// SinceHeartbeat is the time since its last registration or
	// heartbeat, read on the monotonic clock.
	SinceHeartbeat time.Duration
	// Topics counts the topics with a queue of the broker's group.
	Topics int
}

// Namesrv is what the NameServer shows.
type Namesrv struct {
	Listeners []Listener
	// Topics, Clusters and BrokerGroups are the sizes of topicQueueTable,
	// clusterAddrTable and brokerAddrTable.
	Topics, Clusters, BrokerGroups int
	// Brokers are at most the limit asked, ordered by cluster, name, id
	// and address; LiveBrokers counts them all.
	Brokers     []Broker
	LiveBrokers int
}

// NamesrvSource is the NameServer as the page reads it (namesrv.Server).
type NamesrvSource interface {
	// NamesrvStatus returns the NameServer's view with at most limit
	// brokers. It must be safe to call concurrently with the server's
	// work and hold no lock after it returns.
	NamesrvStatus(limit int) Namesrv
}

// Member is one server of the Controller's Raft configuration.
type Member struct {
	// ID is the Raft server id; RaftAddr its Raft address; Addr its
	// broker-facing address (empty when not configured here).
	ID, RaftAddr, Addr string
	Voter              bool
}

// SyncMember is one broker of a set's sync-state set.
type SyncMember struct {
	ID   int64
	Addr string // empty when the replica half does not know it
}

// BrokerSet is one broker set of the Controller's replicated state.
type BrokerSet struct {
	Name, Cluster string
	// HasMaster reports a master; MasterID and MasterAddr name it.
	HasMaster         bool
	MasterID          int64
	MasterAddr        string
	MasterEpoch       int32
	SyncStateSetEpoch int32
	SyncStateSet      []SyncMember
}

// Controller is what the Controller shows.
type Controller struct {
	Listeners []Listener
	// SelfID is this node's Raft id; LeaderID the leader it knows (empty:
	// none); RaftState and Term come from hashicorp/raft.
	SelfID, LeaderID, RaftState, Term string
	// ClusterVersion is the replicated cluster version; Format the newest
	// Controller format this node reads.
	ClusterVersion, Format int
	Members                []Member
	// MembersError says why Members is empty (Raft not started, ...).
	MembersError string
	// Sets are at most the limit asked, ordered by name; TotalSets counts
	// them all.
	Sets      []BrokerSet
	TotalSets int
}

// ControllerSource is the Controller as the page reads it
// (controller.Controller).
type ControllerSource interface {
	// ControllerStatus returns the Controller's view with at most limit
	// broker sets, under the same rules as NamesrvStatus.
	ControllerStatus(limit int) Controller
}
