//go:build embedded_controller

package controller

import (
	"slices"
	"sort"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/wire"
)

// firstBrokerID is the id a fresh broker set hands out first
// (MixAll.FIRST_BROKER_CONTROLLER_ID).
const firstBrokerID int64 = 1

// brokerIDInfo is one registered replica of a broker set.
type brokerIDInfo struct {
	Address           string
	RegisterCheckCode string
}

// replicaInfo is the replica half of a broker set (Java BrokerReplicaInfo).
type replicaInfo struct {
	ClusterName        string
	BrokerName         string
	NextAssignBrokerID int64 // starts at 1, +1 per added id, never lowered
	Brokers            map[int64]brokerIDInfo
}

// syncStateInfo is the election half of a broker set (Java SyncStateInfo).
type syncStateInfo struct {
	ClusterName       string
	BrokerName        string
	MasterEpoch       int32
	SyncStateSetEpoch int32
	SyncStateSet      []int64 // sorted, unique, never nil
	MasterBrokerID    int64   // NoBrokerID when there is no master
}

// state is the replicated controller state, keyed by brokerName only (as in
// Java, clusterName is stored but is not part of the key). A broker set
// "exists" only when it is present in both maps; half-removed sets (possible
// after CleanBrokerData) are kept exactly as Java keeps them.
//
// state is not safe for concurrent use; the FSM guards it. Command builders
// only read it.
type state struct {
	replicas   map[string]*replicaInfo
	syncStates map[string]*syncStateInfo
	retired    map[string]retiredSet // epochs of removed sync-state halves (tombstone.go)
	// clusterVersion is the replicated cluster version; 0 means 1
	// (entry_format.go).
	clusterVersion int
	// size is the accounted size in bytes once sized (statesize.go).
	size  int64
	sized bool
}

// newState returns an empty state.
func newState() *state {
	return &state{replicas: map[string]*replicaInfo{}, syncStates: map[string]*syncStateInfo{},
		retired: map[string]retiredSet{}}
}

// Clone returns a deep copy.
func (s *state) Clone() *state {
	c := newState() // not sized: a copy compares equal to a restored snapshot
	c.clusterVersion = s.clusterVersion
	for name, r := range s.replicas {
		c.replicas[name] = r.clone()
	}
	for name, ep := range s.retired {
		c.retired[name] = ep
	}
	for name, ss := range s.syncStates {
		c.syncStates[name] = ss.clone()
	}
	return c
}

func (r *replicaInfo) clone() *replicaInfo {
	c := *r
	c.Brokers = make(map[int64]brokerIDInfo, len(r.Brokers))
	for id, info := range r.Brokers {
		c.Brokers[id] = info
	}
	return &c
}

func (ss *syncStateInfo) clone() *syncStateInfo {
	c := *ss
	c.SyncStateSet = slices.Clone(ss.SyncStateSet)
	if c.SyncStateSet == nil {
		c.SyncStateSet = []int64{}
	}
	return &c
}

// contains reports whether the broker set exists in both maps.
func (s *state) contains(brokerName string) bool {
	_, r := s.replicas[brokerName]
	_, ss := s.syncStates[brokerName]
	return r && ss
}

// get returns both halves of an existing broker set.
func (s *state) get(brokerName string) (*replicaInfo, *syncStateInfo, bool) {
	if !s.contains(brokerName) {
		return nil, nil, false
	}
	return s.replicas[brokerName], s.syncStates[brokerName], true
}

// BrokerNames returns the names present in either map, sorted.
func (s *state) BrokerNames() []string {
	seen := map[string]struct{}{}
	for n := range s.replicas {
		seen[n] = struct{}{}
	}
	for n := range s.syncStates {
		seen[n] = struct{}{}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Replicas returns a copy of the replica half of a broker set.
func (s *state) Replicas(brokerName string) (replicaInfo, bool) {
	r, ok := s.replicas[brokerName]
	if !ok {
		return replicaInfo{}, false
	}
	return *r.clone(), true
}

// SyncState returns a copy of the election half of a broker set.
func (s *state) SyncState(brokerName string) (syncStateInfo, bool) {
	ss, ok := s.syncStates[brokerName]
	if !ok {
		return syncStateInfo{}, false
	}
	return *ss.clone(), true
}

// IsMaster reports whether brokerID is the current master of an existing set.
// The leader uses it for the inactive-broker trigger: an inactive broker only causes an
// election when it was the master.
func (s *state) IsMaster(brokerName string, brokerID int64) bool {
	_, ss, ok := s.get(brokerName)
	return ok && ss.MasterBrokerID != wire.NoBrokerID && ss.MasterBrokerID == brokerID
}

// BrokerSetsNeedingReelect is the inactive-master scan (scanNeedReelectBrokerSets): the
// sorted names of existing sets whose master is set but inactive while at
// least one registered replica is alive.
func (s *state) BrokerSetsNeedingReelect(live liveness.Reader) []string {
	var out []string
	for _, name := range s.BrokerNames() {
		r, ss, ok := s.get(name)
		if !ok || ss.MasterBrokerID == wire.NoBrokerID {
			continue
		}
		if live.IsActive(ss.ClusterName, name, ss.MasterBrokerID) {
			continue
		}
		if anyAlive(live, ss.ClusterName, name, r.sortedIDs()) {
			out = append(out, name)
		}
	}
	return out
}

func anyAlive(live liveness.Reader, cluster, name string, ids []int64) bool {
	for _, id := range ids {
		if live.IsActive(cluster, name, id) {
			return true
		}
	}
	return false
}

// sortedIDs returns the registered ids in ascending order.
func (r *replicaInfo) sortedIDs() []int64 {
	ids := make([]int64, 0, len(r.Brokers))
	for id := range r.Brokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// address returns the address of id, or "" and false.
func (r *replicaInfo) address(id int64) (string, bool) {
	info, ok := r.Brokers[id]
	return info.Address, ok
}

// addressPtr returns the address of id as a nullable header value.
func (r *replicaInfo) addressPtr(id int64) *string {
	if a, ok := r.address(id); ok {
		return &a
	}
	return nil
}

// addBroker registers id and advances NextAssignBrokerID.
func (r *replicaInfo) addBroker(id int64, addr, checkCode string) {
	r.Brokers[id] = brokerIDInfo{Address: addr, RegisterCheckCode: checkCode}
	r.NextAssignBrokerID++
}

// masterPtr returns the master id as a nullable header value.
// isFresh reports a set that never had a master (master epoch 0), or whose
// sync-state half was recreated (tombstone.go): no master and an empty
// sync-state set. Its first election goes to the requesting broker.
func (ss *syncStateInfo) isFresh() bool {
	return ss.MasterEpoch == 0 || (ss.MasterBrokerID == wire.NoBrokerID && len(ss.SyncStateSet) == 0)
}

func (ss *syncStateInfo) masterPtr() *int64 {
	if ss.MasterBrokerID == wire.NoBrokerID {
		return nil
	}
	id := ss.MasterBrokerID
	return &id
}

// sameIDSet compares two normalized id sets.
func sameIDSet(a, b []int64) bool { return slices.Equal(a, b) }

// containsID reports whether a normalized id set holds id.
func containsID(set []int64, id int64) bool {
	_, found := slices.BinarySearch(set, id)
	return found
}

func ptr[T any](v T) *T { return &v }
