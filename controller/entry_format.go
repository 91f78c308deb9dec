//go:build embedded_controller

package controller

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/rmqgo/nameserver/internal/version"
)

// Formats (docs/controller.md, "Versions and upgrades"). A node reads the
// formats up to its own (version.ControllerFormat, or less for a test node
// standing for an older binary); the group writes the formats up to the
// replicated cluster version, which the leader raises once every node of
// the Raft configuration reads it (clusterversion.go) and never lowers.
const (
	// formatV1 is v1.0.0's: entry types 0-6, 64, 65; snapshots 1 and 2.
	formatV1 = 1
	// formatClusterVersion adds entry type 66 (eventClusterVersion) and
	// snapshot format 3 (snapshotVersionCV).
	formatClusterVersion = 2
	// maxClusterVersion bounds a cluster version read from a log entry or
	// a snapshot (parse, don't validate); a real one is a small number.
	maxClusterVersion = 1 << 16
)

// eventClusterVersion is the log entry that raises the cluster version: a
// node that reads it has every later entry of formats up to Version to
// read. Format 1 nodes do not know it: the leader writes it only when
// every node reads formatClusterVersion.
const eventClusterVersion eventType = 66

// clusterVersionEvent raises the cluster version to Version.
type clusterVersionEvent struct {
	Version int `json:"version"`
}

// Type implements event.
func (clusterVersionEvent) Type() eventType { return eventClusterVersion }

func (clusterVersionEvent) fenced() bool { return false }

// apply raises the cluster version; an entry at or below it (a retried
// raise) changes nothing: no entry lowers it.
func (e clusterVersionEvent) apply(s *state) error {
	s.clusterVersion = max(s.clusterVersion, e.Version)
	return nil
}

// decodeClusterVersion is the validation boundary of a cluster version.
func decodeClusterVersion(payload []byte) (event, error) {
	var ev clusterVersionEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, err
	}
	if ev.Version < formatV1 || ev.Version > maxClusterVersion {
		return nil, fmt.Errorf("cluster version %d outside 1..%d", ev.Version, maxClusterVersion)
	}
	return ev, nil
}

func init() { eventDecoders[eventClusterVersion] = decodeClusterVersion }

// unknownEntryType is the error of an entry type this binary does not know:
// a later format's (or a stranger's bytes).
func unknownEntryType(t eventType) error {
	return fmt.Errorf("%w: unknown log entry type %d (this binary reads formats up to %d)",
		errNewerFormat, t, version.ControllerFormat)
}

// requiredFormat is the format a node needs to apply events: a cluster
// version entry needs the version it raises to (the entries after it may be
// of that format), every other event of this binary format 1.
func requiredFormat(events []event) int {
	need := formatV1
	for _, ev := range events {
		if cv, ok := ev.(clusterVersionEvent); ok {
			need = max(need, cv.Version, formatClusterVersion)
		}
	}
	return need
}

// version is the cluster version of the state (1 until raised).
func (s *state) version() int { return max(s.clusterVersion, formatV1) }

// readsFormat is the newest format this node reads.
func (f *FSM) readsFormat() int {
	if v := f.format.Load(); v != 0 {
		return int(v)
	}
	return version.ControllerFormat
}

// ClusterVersion is the replicated cluster version this node has applied.
func (f *FSM) ClusterVersion() int {
	var v int
	f.read(func(s *state) { v = s.version() })
	return v
}

// decodeReadable decodes an entry and checks that this node reads its
// format: the check of inbound entries (raftstore CheckCommand) and of
// Apply.
func (f *FSM) decodeReadable(data []byte) ([]event, error) {
	events, err := decodeEntry(data)
	if err != nil {
		return nil, err
	}
	if need := requiredFormat(events); need > f.readsFormat() {
		return nil, fmt.Errorf("%w: the entry needs format %d, this node reads up to %d",
			errNewerFormat, need, f.readsFormat())
	}
	return events, nil
}

// checkEntry is the raftstore CheckCommand of the Controller: a follower
// refuses an inbound entry it could not apply (a stranger's, or a later
// format's: stored and committed, it would stop the FSM at every start).
func (f *FSM) checkEntry(data []byte) error {
	_, err := f.decodeReadable(data)
	return err
}

// stopOn is Apply's answer to an entry it cannot decode: it logs which
// format the entry needs, when that is the reason, then panics (raft's
// FSM goroutine stops the process) rather than skip the entry and let
// the replicas diverge.
func (f *FSM) stopOn(index uint64, err error) {
	f.logger.Error("cannot apply log entry: stopping; a node that meets an entry of a newer format needs the binary that reads it",
		"index", index, "reads_format", f.readsFormat(), "error", err)
	panic(fmt.Errorf("controller: failed to decode log entry at index %d: %w", index, err))
}

// versionStats adds the FSM's version figures to the Raft stats (metrics).
func (f *FSM) versionStats(m map[string]string) {
	m["cluster_version"] = strconv.Itoa(f.ClusterVersion())
	m["format_version"] = strconv.Itoa(f.readsFormat())
}

// versions reads the rest of a version 2 or 3 snapshot header: version 3
// (format 2 and later) carries a cluster version of at least 2, at most
// the node's format.
func (r *snapshotReader) versions(v uint64) error {
	switch {
	case v == snapshotVersion:
		r.version, r.clusterVersion = snapshotVersion, formatV1
		return nil
	case v == snapshotVersionCV && r.format >= formatClusterVersion:
		r.version = snapshotVersionCV
	case v == snapshotVersionCV:
		return fmt.Errorf("%w %d: %w: it needs format %d, this node reads up to %d",
			errSnapshotVersion, v, errNewerFormat, formatClusterVersion, r.format)
	default:
		return fmt.Errorf("%w %d", errSnapshotVersion, v)
	}
	cv, err := r.uvarint()
	switch {
	case err != nil:
		return err
	case cv < formatClusterVersion || cv > maxClusterVersion:
		return fmt.Errorf("%w: cluster version %d outside %d..%d", errSnapshotCorrupt, cv, formatClusterVersion, maxClusterVersion)
	case int(cv) > r.format:
		return fmt.Errorf("%w: snapshot of cluster version %d, this node reads up to %d", errNewerFormat, cv, r.format)
	}
	r.clusterVersion = int(cv)
	return nil
}
