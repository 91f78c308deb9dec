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

// EventType is the first byte of a log entry. Values 1..6 keep the Java
// event ids (EventType.java) so logs read the same; the encoding after the
// byte is ours (JSON of the Go event struct), not DLedger's.
type EventType uint8

// Log entry types.
const (
	EventNoop                EventType = 0 // empty payload; a read/leadership barrier
	EventAlterSyncStateSet   EventType = 1
	EventApplyBrokerID       EventType = 2
	EventElectMaster         EventType = 3
	EventRead                EventType = 4 // Java's ReadEvent; never produced, applied as a no-op
	EventCleanBrokerData     EventType = 5
	EventUpdateBrokerAddress EventType = 6
	EventBatch               EventType = 64 // several events of one request, applied together
	// EventFenced prefixes an entry that holds a fenced event (fence.go).
	// The previous version does not know it and stops on it (Apply panics)
	// instead of applying the entry without its preconditions.
	EventFenced EventType = 65

	// IgnoreUnknownFlag marks an entry type that an older node may skip when
	// it does not know it (consul style). Without the flag an unknown type
	// is a corrupt log and Apply panics.
	IgnoreUnknownFlag EventType = 128
)

// Event is one replicated state change produced by a command builder.
type Event interface {
	// Type is the entry type byte of the event.
	Type() EventType
	// apply mutates the state. It must be deterministic. A returned error is
	// a business result (e.g. the set vanished), never a reason to stop. A
	// fenced event that returns an error has changed nothing.
	apply(s *State) error
	// fenced reports whether the event carries the preconditions it was
	// built on (see fence.go; false for entries of the previous version).
	fenced() bool
}

// AlterSyncStateSetEvent replaces the sync-state set and bumps its epoch.
type AlterSyncStateSetEvent struct {
	BrokerName      string  `json:"brokerName"`
	NewSyncStateSet []int64 `json:"newSyncStateSet"`
	Fence           *Fence  `json:"fence,omitempty"` // nil in entries of the previous version
}

// ApplyBrokerIDEvent registers a broker id (creating the set if needed).
type ApplyBrokerIDEvent struct {
	ClusterName       string `json:"clusterName"`
	BrokerName        string `json:"brokerName"`
	BrokerAddress     string `json:"brokerAddress"`
	NewBrokerID       int64  `json:"newBrokerId"`
	RegisterCheckCode string `json:"registerCheckCode"`
	Fenced            bool   `json:"fenced,omitempty"` // false in entries of the previous version
}

// ElectMasterEvent records an election: a new master, or (not elected) the
// loss of the master.
type ElectMasterEvent struct {
	NewMasterElected  bool   `json:"newMasterElected"`
	BrokerName        string `json:"brokerName"`
	NewMasterBrokerID int64  `json:"newMasterBrokerId"`
	Fence             *Fence `json:"fence,omitempty"` // nil in entries of the previous version
}

// CleanBrokerDataEvent removes ids, or the whole set when IDs is empty.
type CleanBrokerDataEvent struct {
	BrokerName string  `json:"brokerName"`
	IDs        []int64 `json:"brokerIdSetToClean,omitempty"`
	Fence      *Fence  `json:"fence,omitempty"` // nil in entries of the previous version
}

// UpdateBrokerAddressEvent replaces the stored address of an id.
type UpdateBrokerAddressEvent struct {
	ClusterName   string `json:"clusterName"`
	BrokerName    string `json:"brokerName"`
	BrokerAddress string `json:"brokerAddress"`
	BrokerID      int64  `json:"brokerId"`
}

// ReadEvent is Java's ReadEvent: it changes nothing.
type ReadEvent struct{}

// Type implements Event.
func (AlterSyncStateSetEvent) Type() EventType { return EventAlterSyncStateSet }

// Type implements Event.
func (ApplyBrokerIDEvent) Type() EventType { return EventApplyBrokerID }

// Type implements Event.
func (ElectMasterEvent) Type() EventType { return EventElectMaster }

// Type implements Event.
func (CleanBrokerDataEvent) Type() EventType { return EventCleanBrokerData }

// Type implements Event.
func (UpdateBrokerAddressEvent) Type() EventType { return EventUpdateBrokerAddress }

// Type implements Event.
func (ReadEvent) Type() EventType { return EventRead }

func (ReadEvent) apply(*State) error { return nil }

func (e AlterSyncStateSetEvent) fenced() bool   { return e.Fence != nil }
func (e ApplyBrokerIDEvent) fenced() bool       { return e.Fenced }
func (e ElectMasterEvent) fenced() bool         { return e.Fence != nil }
func (e CleanBrokerDataEvent) fenced() bool     { return e.Fence != nil }
func (e UpdateBrokerAddressEvent) fenced() bool { return false } // Apply checks the id anyway
func (ReadEvent) fenced() bool                  { return false }

func (e AlterSyncStateSetEvent) apply(s *State) error {
	newSet := wire.NormalizeIDs(e.NewSyncStateSet)
	ss, err := e.target(s, newSet)
	if err != nil {
		return err
	}
	if ss.SyncStateSetEpoch == math.MaxInt32 { // ours: Java's ++ would wrap
		return newError(ErrAlterSyncStateSetFailed, "alter sync-state set of %s: %s", e.BrokerName, remarkEpochExhausted)
	}
	ss.SyncStateSet = newSet
	ss.SyncStateSetEpoch++
	return nil
}

// target returns the sync-state half to change, or why it must not change.
func (e AlterSyncStateSetEvent) target(s *State, newSet []int64) (*SyncStateInfo, error) {
	if e.Fence == nil {
		_, ss, ok := s.get(e.BrokerName)
		if !ok {
			return nil, newError(ErrBrokerMetadataNotExist, "alter sync-state set: %s", remarkMetadataNotExist)
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
func checkAlterResult(r *ReplicaInfo, ss *SyncStateInfo, newSet []int64) error {
	if err := checkRegistered(r, newSet, "alter syncStateSet"); err != nil {
		return err
	}
	if !containsID(newSet, ss.MasterBrokerID) {
		return newError(ErrAlterSyncStateSetFailed,
			"Rejecting alter syncStateSet request because the newSyncStateSet don't contains origin leader {%d}",
			ss.MasterBrokerID)
	}
	return nil
}

func (e ApplyBrokerIDEvent) apply(s *State) error {
	if e.Fenced {
		return e.applyFenced(s)
	}
	// Previous version, kept for replay: a half-removed set starts afresh.
	if r, _, ok := s.get(e.BrokerName); ok {
		if _, used := r.Brokers[e.NewBrokerID]; !used {
			r.addBroker(e.NewBrokerID, e.BrokerAddress, e.RegisterCheckCode)
		}
		return nil
	}
	// First id of the set (or the set was half removed): start afresh.
	r := &ReplicaInfo{ClusterName: e.ClusterName, BrokerName: e.BrokerName,
		NextAssignBrokerID: FirstBrokerID, Brokers: map[int64]BrokerIDInfo{}}
	r.addBroker(e.NewBrokerID, e.BrokerAddress, e.RegisterCheckCode)
	s.replicas[e.BrokerName] = r
	s.syncStates[e.BrokerName] = &SyncStateInfo{ClusterName: e.ClusterName, BrokerName: e.BrokerName,
		SyncStateSet: []int64{}, MasterBrokerID: wire.NoBrokerID}
	return nil
}

// target returns the sync-state half to change, or why it must not change.
func (e ElectMasterEvent) target(s *State) (*SyncStateInfo, error) {
	if e.Fence == nil {
		_, ss, ok := s.get(e.BrokerName)
		if !ok {
			return nil, newError(ErrBrokerMetadataNotExist, "elect master of unknown broker set %s", e.BrokerName)
		}
		return ss, nil
	}
	r, ss, err := e.Fence.check(s, e.BrokerName, "elect master")
	if err == nil && e.NewMasterElected {
		err = checkRegistered(r, []int64{e.NewMasterBrokerID}, "elect master")
	}
	return ss, err
}

func (e ElectMasterEvent) apply(s *State) error {
	ss, err := e.target(s)
	if err != nil {
		return err
	}
	if ss.MasterEpoch == math.MaxInt32 || (e.NewMasterElected && ss.SyncStateSetEpoch == math.MaxInt32) {
		return newError(ErrElectMasterFailed, "elect master of %s: %s", e.BrokerName, remarkEpochExhausted)
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

func (e CleanBrokerDataEvent) apply(s *State) error {
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
	r, ss, ok := s.get(e.BrokerName)
	if !ok {
		return nil
	}
	for _, id := range e.IDs {
		delete(r.Brokers, id)
		ss.SyncStateSet = removeID(ss.SyncStateSet, id) // no epoch change, as in Java
	}
	if len(r.Brokers) == 0 {
		delete(s.replicas, e.BrokerName)
	}
	if len(ss.SyncStateSet) == 0 {
		delete(s.syncStates, e.BrokerName)
	}
	return nil
}

func (e UpdateBrokerAddressEvent) apply(s *State) error {
	// Java dereferences the replica entry unconditionally (an NPE in the
	// state machine); we report the miss instead.
	r, ok := s.replicas[e.BrokerName]
	if !ok {
		return newError(ErrBrokerMetadataNotExist, "update address of unknown broker set %s", e.BrokerName)
	}
	info, ok := r.Brokers[e.BrokerID]
	if !ok {
		return newError(ErrBrokerNeedToBeRegistered, "update address of unknown broker id %d in %s", e.BrokerID, e.BrokerName)
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
var eventDecoders = map[EventType]func([]byte) (Event, error){
	EventAlterSyncStateSet:   decodeJSON[AlterSyncStateSetEvent],
	EventApplyBrokerID:       decodeJSON[ApplyBrokerIDEvent],
	EventElectMaster:         decodeJSON[ElectMasterEvent],
	EventRead:                func([]byte) (Event, error) { return ReadEvent{}, nil },
	EventCleanBrokerData:     decodeJSON[CleanBrokerDataEvent],
	EventUpdateBrokerAddress: decodeJSON[UpdateBrokerAddressEvent],
}

func decodeJSON[T Event](payload []byte) (Event, error) {
	var ev T
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, err
	}
	return ev, nil
}

// decodeOne decodes a single (non-batch) entry. ok=false means an unknown
// type carrying IgnoreUnknownFlag: skip it.
func decodeOne(t EventType, payload []byte) (ev Event, ok bool, err error) {
	if t == EventNoop {
		return nil, false, nil
	}
	dec, known := eventDecoders[t&^IgnoreUnknownFlag]
	if !known {
		if t&IgnoreUnknownFlag != 0 {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("unknown log entry type %d", t)
	}
	ev, err = dec(payload)
	if err != nil {
		return nil, false, fmt.Errorf("decode log entry type %d: %w", t, err)
	}
	return ev, true, nil
}

// EncodeEntry encodes the events of one request as one log entry:
//   - no events: the single byte EventNoop (a barrier entry);
//   - one event: its type byte followed by its JSON;
//   - several: EventBatch, then per event its type byte, the uvarint length
//     of its JSON and the JSON;
//   - any of these that holds a fenced event: EventFenced, then the above.
func EncodeEntry(events ...Event) ([]byte, error) {
	if !anyFenced(events) {
		return encodeEvents(events)
	}
	inner, err := encodeEvents(events)
	if err != nil {
		return nil, err
	}
	return append([]byte{byte(EventFenced)}, inner...), nil
}

func encodeEvents(events []Event) ([]byte, error) {
	switch len(events) {
	case 0:
		return []byte{byte(EventNoop)}, nil
	case 1:
		payload, err := json.Marshal(events[0])
		if err != nil {
			return nil, fmt.Errorf("encode event type %d: %w", events[0].Type(), err)
		}
		return append([]byte{byte(events[0].Type())}, payload...), nil
	}
	out := []byte{byte(EventBatch)}
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

// DecodeEntry decodes a log entry into its events (in order). Unknown types
// flagged with IgnoreUnknownFlag are skipped; anything else that cannot be
// decoded is an error.
func DecodeEntry(data []byte) ([]Event, error) {
	if len(data) == 0 {
		return nil, errors.New("empty log entry")
	}
	t := EventType(data[0])
	if t == EventFenced {
		if len(data) < 2 || EventType(data[1]) == EventFenced {
			return nil, errors.New("malformed fenced log entry")
		}
		return DecodeEntry(data[1:])
	}
	if t != EventBatch {
		ev, ok, err := decodeOne(t, data[1:])
		if err != nil || !ok {
			return nil, err
		}
		return []Event{ev}, nil
	}
	return decodeBatch(data[1:])
}

func decodeBatch(rest []byte) ([]Event, error) {
	var events []Event
	for len(rest) > 0 {
		t := EventType(rest[0])
		if t == EventBatch {
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
