//go:build embedded_controller

package controller

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/rmqgo/nameserver/controller/wire"
)

// eventType is the first byte of a log entry. Values 1..6 keep the Java
// event ids (EventType.java) so logs read the same; the encoding after the
// byte is ours (JSON of the Go event struct), not DLedger's.
type eventType uint8

// Log entry types.
const (
	eventNoop                eventType = 0 // empty payload; a read/leadership barrier
	eventAlterSyncStateSet   eventType = 1
	eventApplyBrokerID       eventType = 2
	eventElectMaster         eventType = 3
	eventRead                eventType = 4 // Java's ReadEvent; never produced, applied as a no-op
	eventCleanBrokerData     eventType = 5
	eventUpdateBrokerAddress eventType = 6
	eventBatch               eventType = 64 // several events of one request, applied together
	// eventFenced prefixes an entry that holds a fenced event (fence.go).
	// Builds before 1.0.0 do not know it and stop on it (Apply panics)
	// instead of applying the entry without its preconditions.
	eventFenced eventType = 65

	// ignoreUnknownFlag marks an entry type that an older node may skip when
	// it does not know it (consul style). Without the flag an unknown type
	// is a corrupt log and Apply panics.
	ignoreUnknownFlag eventType = 128
)

// event is one replicated state change produced by a command builder.
type event interface {
	// Type is the entry type byte of the event.
	Type() eventType
	// apply mutates the state. It must be deterministic. A returned error is
	// a business result (e.g. the set vanished), never a reason to stop. A
	// fenced event that returns an error has changed nothing.
	apply(s *state) error
	// fenced reports whether the event carries the preconditions it was
	// built on (see fence.go; false in unfenced entries).
	fenced() bool
}

// alterSyncStateSetEvent replaces the sync-state set and bumps its epoch.
type alterSyncStateSetEvent struct {
	BrokerName      string  `json:"brokerName"`
	NewSyncStateSet []int64 `json:"newSyncStateSet"`
	Fence           *fence  `json:"fence,omitempty"` // nil in unfenced entries
}

// applyBrokerIDEvent registers a broker id (creating the set if needed).
type applyBrokerIDEvent struct {
	ClusterName       string `json:"clusterName"`
	BrokerName        string `json:"brokerName"`
	BrokerAddress     string `json:"brokerAddress"`
	NewBrokerID       int64  `json:"newBrokerId"`
	RegisterCheckCode string `json:"registerCheckCode"`
	Fenced            bool   `json:"fenced,omitempty"` // false in unfenced entries
	// Checked marks an event built by a leader that parsed its fields
	// (field_rules.go); Apply checks them again. False in entries of older
	// versions, which apply as before (legacy.go legacyEntries).
	Checked bool `json:"checked,omitempty"`
}

// electMasterEvent records an election: a new master, or (not elected) the
// loss of the master.
type electMasterEvent struct {
	NewMasterElected  bool   `json:"newMasterElected"`
	BrokerName        string `json:"brokerName"`
	NewMasterBrokerID int64  `json:"newMasterBrokerId"`
	Fence             *fence `json:"fence,omitempty"` // nil in unfenced entries
}

// cleanBrokerDataEvent removes ids, or the whole set when IDs is empty.
type cleanBrokerDataEvent struct {
	BrokerName string  `json:"brokerName"`
	IDs        []int64 `json:"brokerIdSetToClean,omitempty"`
	Fence      *fence  `json:"fence,omitempty"` // nil in unfenced entries
}

// updateBrokerAddressEvent replaces the stored address of an id.
type updateBrokerAddressEvent struct {
	ClusterName   string `json:"clusterName"`
	BrokerName    string `json:"brokerName"`
	BrokerAddress string `json:"brokerAddress"`
	BrokerID      int64  `json:"brokerId"`
	Checked       bool   `json:"checked,omitempty"` // as in applyBrokerIDEvent
}

// readEvent is Java's ReadEvent: it changes nothing.
type readEvent struct{}

// Type implements event.
func (alterSyncStateSetEvent) Type() eventType { return eventAlterSyncStateSet }

// Type implements event.
func (applyBrokerIDEvent) Type() eventType { return eventApplyBrokerID }

// Type implements event.
func (electMasterEvent) Type() eventType { return eventElectMaster }

// Type implements event.
func (cleanBrokerDataEvent) Type() eventType { return eventCleanBrokerData }

// Type implements event.
func (updateBrokerAddressEvent) Type() eventType { return eventUpdateBrokerAddress }

// Type implements event.
func (readEvent) Type() eventType { return eventRead }

func (readEvent) apply(*state) error { return nil }

func (e alterSyncStateSetEvent) fenced() bool   { return e.Fence != nil }
func (e applyBrokerIDEvent) fenced() bool       { return e.Fenced }
func (e electMasterEvent) fenced() bool         { return e.Fence != nil }
func (e cleanBrokerDataEvent) fenced() bool     { return e.Fence != nil }
func (e updateBrokerAddressEvent) fenced() bool { return false } // Apply checks the id anyway
func (readEvent) fenced() bool                  { return false }

func (e alterSyncStateSetEvent) apply(s *state) error {
	newSet := wire.NormalizeIDs(e.NewSyncStateSet)
	ss, err := e.target(s, newSet)
	if err != nil {
		return err
	}
	if ss.SyncStateSetEpoch == math.MaxInt32 { // ours: Java's ++ would wrap
		return newError(errAlterSyncStateSetFailed, "alter sync-state set of %s: %s", e.BrokerName, remarkEpochExhausted)
	}
	ss.SyncStateSet = newSet
	ss.SyncStateSetEpoch++
	return nil
}

// target returns the sync-state half to change, or why it must not change.
func (e alterSyncStateSetEvent) target(s *state, newSet []int64) (*syncStateInfo, error) {
	if e.Fence == nil {
		_, ss, ok := s.get(e.BrokerName)
		if !ok {
			return nil, newError(errBrokerMetadataNotExist, "alter sync-state set: %s", remarkMetadataNotExist)
		}
		return ss, nil
	}
	r, ss, err := e.Fence.check(s, e.BrokerName, "alter syncStateSet")
	if err == nil {
		err = checkAlterResult(r, ss, newSet)
	}
	return ss, err
}

// checkAlterResult: the new set holds only registered ids and the master.
func checkAlterResult(r *replicaInfo, ss *syncStateInfo, newSet []int64) error {
	if err := checkRegistered(r, newSet, "alter syncStateSet"); err != nil {
		return err
	}
	if !containsID(newSet, ss.MasterBrokerID) {
		return newError(errAlterSyncStateSetFailed,
			"Rejecting alter syncStateSet request because the newSyncStateSet don't contains origin leader {%d}",
			ss.MasterBrokerID)
	}
	return nil
}

func (e applyBrokerIDEvent) apply(s *state) error {
	if e.Checked {
		if err := e.check(s); err != nil {
			return err
		}
	}
	if e.Fenced {
		return e.applyFenced(s)
	}
	// Unfenced entries, kept for replay: a half-removed set starts afresh.
	if r, _, ok := s.get(e.BrokerName); ok {
		if _, used := r.Brokers[e.NewBrokerID]; !used {
			r.addBroker(e.NewBrokerID, e.BrokerAddress, e.RegisterCheckCode)
		}
		return nil
	}
	// First id of the set (or the set was half removed): start afresh.
	r := &replicaInfo{ClusterName: e.ClusterName, BrokerName: e.BrokerName,
		NextAssignBrokerID: firstBrokerID, Brokers: map[int64]brokerIDInfo{}}
	r.addBroker(e.NewBrokerID, e.BrokerAddress, e.RegisterCheckCode)
	s.replicas[e.BrokerName] = r
	s.syncStates[e.BrokerName] = &syncStateInfo{ClusterName: e.ClusterName, BrokerName: e.BrokerName,
		SyncStateSet: []int64{}, MasterBrokerID: wire.NoBrokerID}
	return nil
}

// target returns the sync-state half to change, or why it must not change.
func (e electMasterEvent) target(s *state) (*syncStateInfo, error) {
	if e.Fence == nil {
		_, ss, ok := s.get(e.BrokerName)
		if !ok {
			return nil, newError(errBrokerMetadataNotExist, "elect master of unknown broker set %s", e.BrokerName)
		}
		return ss, nil
	}
	r, ss, err := e.Fence.check(s, e.BrokerName, "elect master")
	if err == nil && e.NewMasterElected {
		err = checkRegistered(r, []int64{e.NewMasterBrokerID}, "elect master")
	}
	return ss, err
}

func (e electMasterEvent) apply(s *state) error {
	ss, err := e.target(s)
	if err != nil {
		return err
	}
	if ss.MasterEpoch == math.MaxInt32 || (e.NewMasterElected && ss.SyncStateSetEpoch == math.MaxInt32) {
		return newError(errElectMasterFailed, "elect master of %s: %s", e.BrokerName, remarkEpochExhausted)
	}
	ss.MasterEpoch++
	if !e.NewMasterElected {
		ss.MasterBrokerID = wire.NoBrokerID // ss and its epoch are kept
		return nil
	}
	ss.MasterBrokerID = e.NewMasterBrokerID
	ss.SyncStateSet = []int64{e.NewMasterBrokerID}
	ss.SyncStateSetEpoch++
	return nil
}

func (e cleanBrokerDataEvent) apply(s *state) error {
	if e.Fence != nil {
		if _, _, err := e.Fence.check(s, e.BrokerName, "clean broker data"); err != nil {
			return err
		}
		return e.applyFenced(s)
	}
	if len(e.IDs) == 0 {
		delete(s.replicas, e.BrokerName)
		delete(s.syncStates, e.BrokerName)
		return nil
	}
	if r, ss, ok := s.get(e.BrokerName); ok {
		s.dropIDs(e.BrokerName, r, ss, e.IDs, false) // no epoch change, as in Java
	}
	return nil
}

// dropIDs removes ids from both halves of a set and removes a half left
// empty; keep (fenced entries, tombstone.go) first records the tombstone of a
// removed half.
func (s *state) dropIDs(name string, r *replicaInfo, ss *syncStateInfo, ids []int64, keep bool) {
	for _, id := range ids {
		delete(r.Brokers, id)
		ss.SyncStateSet = removeID(ss.SyncStateSet, id)
	}
	if len(r.Brokers) == 0 {
		if keep {
			s.retireReplicas(name, r)
		}
		delete(s.replicas, name)
	}
	if len(ss.SyncStateSet) == 0 {
		if keep {
			s.retireSync(name, ss)
		}
		delete(s.syncStates, name)
	}
}

func (e updateBrokerAddressEvent) apply(s *state) error {
	if e.Checked {
		if err := e.check(s); err != nil {
			return err
		}
	}
	// Java dereferences the replica entry unconditionally (an NPE in the
	// state machine); we report the miss instead.
	r, ok := s.replicas[e.BrokerName]
	if !ok {
		return newError(errBrokerMetadataNotExist, "update address of unknown broker set %s", e.BrokerName)
	}
	info, ok := r.Brokers[e.BrokerID]
	if !ok {
		return newError(errBrokerNeedToBeRegistered, "update address of unknown broker id %d in %s", e.BrokerID, e.BrokerName)
	}
	info.Address = e.BrokerAddress // the check code is kept
	r.Brokers[e.BrokerID] = info
	return nil
}

func removeID(set []int64, id int64) []int64 {
	out := make([]int64, 0, len(set))
	for _, v := range set {
		if v != id {
			out = append(out, v)
		}
	}
	return out
}

// eventDecoders is the registry of entry decoders keyed by type byte.
var eventDecoders = map[eventType]func([]byte) (event, error){
	eventAlterSyncStateSet:   decodeJSON[alterSyncStateSetEvent],
	eventApplyBrokerID:       decodeJSON[applyBrokerIDEvent],
	eventElectMaster:         decodeJSON[electMasterEvent],
	eventRead:                func([]byte) (event, error) { return readEvent{}, nil },
	eventCleanBrokerData:     decodeJSON[cleanBrokerDataEvent],
	eventUpdateBrokerAddress: decodeJSON[updateBrokerAddressEvent],
}

func decodeJSON[T event](payload []byte) (event, error) {
	var ev T
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, err
	}
	return ev, nil
}

// decodeOne decodes a single (non-batch) entry. ok=false means an unknown
// type carrying ignoreUnknownFlag: skip it.
func decodeOne(t eventType, payload []byte) (ev event, ok bool, err error) {
	if t == eventNoop {
		return nil, false, nil
	}
	dec, known := eventDecoders[t&^ignoreUnknownFlag]
	if !known {
		if t&ignoreUnknownFlag != 0 {
			return nil, false, nil
		}
		return nil, false, unknownEntryType(t)
	}
	ev, err = dec(payload)
	if err != nil {
		return nil, false, fmt.Errorf("decode log entry type %d: %w", t, err)
	}
	return ev, true, nil
}

// encodeEntry encodes the events of one request as one log entry:
//   - no events: the single byte eventNoop (a barrier entry);
//   - one event: its type byte followed by its JSON;
//   - several: eventBatch, then per event its type byte, the uvarint length
//     of its JSON and the JSON;
//   - any of these that holds a fenced event: eventFenced, then the above.
func encodeEntry(events ...event) ([]byte, error) {
	if !anyFenced(events) {
		return encodeEvents(events)
	}
	inner, err := encodeEvents(events)
	if err != nil {
		return nil, err
	}
	return append([]byte{byte(eventFenced)}, inner...), nil
}

func encodeEvents(events []event) ([]byte, error) {
	switch len(events) {
	case 0:
		return []byte{byte(eventNoop)}, nil
	case 1:
		payload, err := json.Marshal(events[0])
		if err != nil {
			return nil, fmt.Errorf("encode event type %d: %w", events[0].Type(), err)
		}
		return append([]byte{byte(events[0].Type())}, payload...), nil
	}
	out := []byte{byte(eventBatch)}
	for _, ev := range events {
		payload, err := json.Marshal(ev)
		if err != nil {
			return nil, fmt.Errorf("encode event type %d: %w", ev.Type(), err)
		}
		out = append(out, byte(ev.Type()))
		out = binary.AppendUvarint(out, uint64(len(payload)))
		out = append(out, payload...)
	}
	return out, nil
}

// decodeEntry decodes a log entry into its events (in order). Unknown types
// flagged with ignoreUnknownFlag are skipped; anything else that cannot be
// decoded is an error.
func decodeEntry(data []byte) ([]event, error) {
	if len(data) == 0 {
		return nil, errors.New("empty log entry")
	}
	t := eventType(data[0])
	if t == eventFenced {
		if len(data) < 2 || eventType(data[1]) == eventFenced {
			return nil, errors.New("malformed fenced log entry")
		}
		return decodeEntry(data[1:])
	}
	if t != eventBatch {
		ev, ok, err := decodeOne(t, data[1:])
		if err != nil || !ok {
			return nil, err
		}
		return []event{ev}, nil
	}
	return decodeBatch(data[1:])
}

func decodeBatch(rest []byte) ([]event, error) {
	var events []event
	for len(rest) > 0 {
		t := eventType(rest[0])
		if t == eventBatch {
			return nil, errors.New("nested batch entry")
		}
		n, size := binary.Uvarint(rest[1:])
		if size <= 0 || uint64(len(rest)-1-size) < n {
			return nil, errors.New("truncated batch entry")
		}
		start := 1 + size
		ev, ok, err := decodeOne(t, rest[start:start+int(n)])
		if err != nil {
			return nil, err
		}
		if ok {
			events = append(events, ev)
		}
		rest = rest[start+int(n):]
	}
	return events, nil
}
