//go:build embedded_controller

package controller

import (
	"encoding/json"
	"fmt"

	"github.com/rmqgo/nameserver/controller/wire"
)

// snapshotVersion is the version of the snapshot encoding below.
const snapshotVersion = 1

// snapshotDoc is the snapshot encoding: JSON with broker sets sorted by name
// and ids sorted ascending, so equal states give equal bytes. Either half of
// a set may be absent (half-removed sets are state too).
type snapshotDoc struct {
	Version    int           `json:"version"`
	BrokerSets []snapshotSet `json:"brokerSets"`
	// Retired holds the epochs of removed sync-state halves (retire.go);
	// absent from snapshots of the previous version.
	Retired []snapshotRetired `json:"retired,omitempty"`
}

type snapshotRetired struct {
	BrokerName        string `json:"brokerName"`
	MasterEpoch       int32  `json:"masterEpoch"`
	SyncStateSetEpoch int32  `json:"syncStateSetEpoch"`
	NextBrokerID      int64  `json:"nextBrokerId,omitempty"`
}

type snapshotSet struct {
	BrokerName string             `json:"brokerName"`
	Replicas   *snapshotReplicas  `json:"replicas,omitempty"`
	SyncState  *snapshotSyncState `json:"syncState,omitempty"`
}

type snapshotReplicas struct {
	ClusterName        string           `json:"clusterName"`
	NextAssignBrokerID int64            `json:"nextAssignBrokerId"`
	Brokers            []snapshotBroker `json:"brokers"`
}

type snapshotBroker struct {
	ID                int64  `json:"id"`
	Address           string `json:"address"`
	RegisterCheckCode string `json:"registerCheckCode"`
}

type snapshotSyncState struct {
	ClusterName       string  `json:"clusterName"`
	MasterEpoch       int32   `json:"masterEpoch"`
	SyncStateSetEpoch int32   `json:"syncStateSetEpoch"`
	SyncStateSet      []int64 `json:"syncStateSet"`
	MasterBrokerID    int64   `json:"masterBrokerId"`
}

// encodeSnapshot serialises a state deterministically.
func encodeSnapshot(s *state) ([]byte, error) {
	doc := snapshotDoc{Version: snapshotVersion, BrokerSets: []snapshotSet{}}
	for _, name := range s.BrokerNames() {
		set := snapshotSet{BrokerName: name}
		if r, ok := s.replicas[name]; ok {
			set.Replicas = replicasToSnapshot(r)
		}
		if ss, ok := s.syncStates[name]; ok {
			set.SyncState = &snapshotSyncState{ClusterName: ss.ClusterName, MasterEpoch: ss.MasterEpoch,
				SyncStateSetEpoch: ss.SyncStateSetEpoch, SyncStateSet: wire.NormalizeIDs(ss.SyncStateSet),
				MasterBrokerID: ss.MasterBrokerID}
		}
		doc.BrokerSets = append(doc.BrokerSets, set)
	}
	for _, name := range s.retiredNames() {
		ep := s.retired[name]
		doc.Retired = append(doc.Retired, snapshotRetired{BrokerName: name, MasterEpoch: ep.MasterEpoch,
			SyncStateSetEpoch: ep.SyncStateSetEpoch, NextBrokerID: ep.NextBrokerID})
	}
	return json.Marshal(doc)
}

func replicasToSnapshot(r *replicaInfo) *snapshotReplicas {
	out := &snapshotReplicas{ClusterName: r.ClusterName, NextAssignBrokerID: r.NextAssignBrokerID,
		Brokers: []snapshotBroker{}}
	for _, id := range r.sortedIDs() {
		info := r.Brokers[id]
		out.Brokers = append(out.Brokers, snapshotBroker{ID: id, Address: info.Address,
			RegisterCheckCode: info.RegisterCheckCode})
	}
	return out
}

// decodeSnapshot parses and validates a snapshot.
func decodeSnapshot(data []byte) (*state, error) {
	var doc snapshotDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Version != snapshotVersion {
		return nil, fmt.Errorf("unsupported snapshot version %d", doc.Version)
	}
	st := newState()
	for _, set := range doc.BrokerSets {
		if set.BrokerName == "" {
			return nil, fmt.Errorf("snapshot broker set without a name")
		}
		if _, dup := st.replicas[set.BrokerName]; dup {
			return nil, fmt.Errorf("duplicate broker set %q in snapshot", set.BrokerName)
		}
		if _, dup := st.syncStates[set.BrokerName]; dup {
			return nil, fmt.Errorf("duplicate broker set %q in snapshot", set.BrokerName)
		}
		restoreSet(st, set)
	}
	for _, r := range doc.Retired {
		st.retired[r.BrokerName] = retiredSet{MasterEpoch: r.MasterEpoch, SyncStateSetEpoch: r.SyncStateSetEpoch,
			NextBrokerID: r.NextBrokerID}
	}
	return st, nil
}

func restoreSet(st *state, set snapshotSet) {
	if r := set.Replicas; r != nil {
		ri := &replicaInfo{ClusterName: r.ClusterName, BrokerName: set.BrokerName,
			NextAssignBrokerID: r.NextAssignBrokerID, Brokers: map[int64]brokerIDInfo{}}
		for _, b := range r.Brokers {
			ri.Brokers[b.ID] = brokerIDInfo{Address: b.Address, RegisterCheckCode: b.RegisterCheckCode}
		}
		st.replicas[set.BrokerName] = ri
	}
	if ss := set.SyncState; ss != nil {
		st.syncStates[set.BrokerName] = &syncStateInfo{ClusterName: ss.ClusterName, BrokerName: set.BrokerName,
			MasterEpoch: ss.MasterEpoch, SyncStateSetEpoch: ss.SyncStateSetEpoch,
			SyncStateSet: wire.NormalizeIDs(ss.SyncStateSet), MasterBrokerID: ss.MasterBrokerID}
	}
}
