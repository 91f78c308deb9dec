//go:build embedded_controller

package controller

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/controller/wire"
)

// This file holds every path that exists only to read what earlier
// versions wrote and no node writes any more: version 1 (JSON) snapshots,
// and log entries whose leader did not check their fields (unchecked
// events that may break today's rules: applied as before, logged and
// counted). Dropping that support is deleting this file and its callers'
// branches (the version 1 case of readSnapshotUpTo in snapshot.go, the FSM's
// legacy field and its count in stats).

// Version 1 snapshots are JSON, written by earlier versions and still read:
//
//	{"version":1,"brokerSets":[{"brokerName":..,"replicas":{..},"syncState":{..}}..],
//	 "retired":[{"brokerName":..,"masterEpoch":..,..}..]}
//
// They are decoded as a stream, one broker set at a time. Every state an
// earlier version could write is accepted: an empty broker name is a name
// like any other, and a broker set named twice (two names that JSON made
// equal) is merged by a fixed rule, each half of the later entry replacing
// that half of the earlier one (JSON's own rule for repeated keys), so every
// node restores the same state; the count is logged.

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

// v1Decoder streams a version 1 document into a state.
type v1Decoder struct {
	dec        *json.Decoder
	st         *state
	version    int
	duplicates int
}

// decodeV1 decodes a version 1 snapshot from r; it returns the number of
// repeated broker-set halves it merged.
func decodeV1(r io.Reader) (*state, int, error) {
	d := &v1Decoder{dec: json.NewDecoder(r), st: newState()}
	if err := d.document(); err != nil {
		return nil, 0, fmt.Errorf("%w: version 1: %w", errSnapshotCorrupt, err)
	}
	if d.version != 1 {
		return nil, 0, fmt.Errorf("%w %d", errSnapshotVersion, d.version)
	}
	return d.st, d.duplicates, nil
}

func (d *v1Decoder) document() error {
	if err := d.delim('{'); err != nil {
		return err
	}
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if err := d.member(key); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	if err := d.delim('}'); err != nil {
		return err
	}
	if _, err := d.dec.Token(); err != io.EOF {
		return fmt.Errorf("data after the document")
	}
	return nil
}

// member decodes the value of one top-level key (matched as
// encoding/json matches field names: case-insensitively).
func (d *v1Decoder) member(key string) error {
	switch {
	case strings.EqualFold(key, "version"):
		return d.dec.Decode(&d.version)
	case strings.EqualFold(key, "brokerSets"):
		return d.array(func() error {
			var set snapshotSet
			if err := d.dec.Decode(&set); err != nil {
				return err
			}
			d.restoreSet(set)
			return nil
		})
	case strings.EqualFold(key, "retired"):
		return d.array(func() error {
			var r snapshotRetired
			err := d.dec.Decode(&r)
			d.st.retired[r.BrokerName] = retiredSet{MasterEpoch: r.MasterEpoch,
				SyncStateSetEpoch: r.SyncStateSetEpoch, NextBrokerID: r.NextBrokerID}
			return err
		})
	}
	var skip json.RawMessage
	return d.dec.Decode(&skip)
}

// array calls each for every element of a JSON array (null is empty).
func (d *v1Decoder) array(each func() error) error {
	tok, err := d.dec.Token()
	if err != nil || tok == nil {
		return err
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("want an array, got %v", tok)
	}
	for d.dec.More() {
		if err := each(); err != nil {
			return err
		}
	}
	return d.delim(']')
}

func (d *v1Decoder) delim(want json.Delim) error {
	tok, err := d.dec.Token()
	if err == nil && tok != want {
		err = fmt.Errorf("want %v, got %v", want, tok)
	}
	return err
}

// restoreSet adds one broker set; a half already present is replaced.
func (d *v1Decoder) restoreSet(set snapshotSet) {
	st := d.st
	if r := set.Replicas; r != nil {
		if _, dup := st.replicas[set.BrokerName]; dup {
			d.duplicates++
		}
		ri := &replicaInfo{ClusterName: r.ClusterName, BrokerName: set.BrokerName,
			NextAssignBrokerID: r.NextAssignBrokerID, Brokers: map[int64]brokerIDInfo{}}
		for _, b := range r.Brokers {
			ri.Brokers[b.ID] = brokerIDInfo{Address: b.Address, RegisterCheckCode: b.RegisterCheckCode}
		}
		st.replicas[set.BrokerName] = ri
	}
	if ss := set.SyncState; ss != nil {
		if _, dup := st.syncStates[set.BrokerName]; dup {
			d.duplicates++
		}
		st.syncStates[set.BrokerName] = &syncStateInfo{ClusterName: ss.ClusterName, BrokerName: set.BrokerName,
			MasterEpoch: ss.MasterEpoch, SyncStateSetEpoch: ss.SyncStateSetEpoch,
			SyncStateSet: wire.NormalizeIDs(ss.SyncStateSet), MasterBrokerID: ss.MasterBrokerID}
	}
}

// legacyProblem returns the rule an unchecked event (written by an older
// version, whose leader did not check it) breaks, or "".
func legacyProblem(ev event) string {
	switch e := ev.(type) {
	case applyBrokerIDEvent:
		if !e.Checked {
			return firstProblem(e.ClusterName, e.BrokerName, e.RegisterCheckCode, e.BrokerAddress)
		}
	case updateBrokerAddressEvent:
		if p := addrRule(e.BrokerAddress); !e.Checked && p != "" {
			return "brokerAddress " + p
		}
	}
	return ""
}

func firstProblem(cluster, name, code, addr string) string {
	checks := []struct{ field, problem string }{{"clusterName", nameRule(cluster, hardLimits.NameLength)},
		{"brokerName", nameRule(name, hardLimits.NameLength)}, {"registerCheckCode", checkCodeRule(code)},
		{"brokerAddress", addrRule(addr)}}
	for _, c := range checks {
		if c.problem != "" {
			return c.field + " " + c.problem
		}
	}
	return ""
}

// legacyEntries counts the unchecked events an FSM applied although they
// break today's rules.
type legacyEntries struct{ n atomic.Uint64 }

// note logs and counts each such event of the entry at index. They are
// applied as before (docs/controller.md section 2.7): every node, of this
// version or an older one, replaying the log or a snapshot, then holds the
// same state.
func (l *legacyEntries) note(logger hclog.Logger, index uint64, events []event) {
	for _, ev := range events {
		if p := legacyProblem(ev); p != "" {
			l.n.Add(1)
			logger.Warn("log entry of an older version breaks the rules of the replicated state; applied as before",
				"index", index, "type", fmt.Sprint(ev.Type()), "rule", p)
		}
	}
}
