package metrics

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// sourceCollector exports the Raft and master-epoch families read from a
// ControllerSource at scrape time; nothing before SetSource.
type sourceCollector struct {
	src *atomic.Pointer[ControllerSource]
}

const raftPrefix = ControllerPrefix + "_raft_"

// raftStates are the values of the state label of raft_state; a state
// not listed is reported as LabelOther.
var raftStates = []string{"Follower", "Candidate", "Leader", "Shutdown", LabelOther}

// raftNumber is a numeric Raft stat exported as a gauge, or as a counter
// when it only grows (a count of events since start).
type raftNumber struct {
	key     string
	desc    *prometheus.Desc
	counter bool
}

var (
	raftStateDesc   = newDesc(raftPrefix+"state", "1 for the node's current Raft state.", "state")
	raftLeaderDesc  = newDesc(raftPrefix+"leader", "1 labelled with the Raft leader this node knows.", "leader_id")
	lastContactDesc = newDesc(raftPrefix+"last_contact_seconds",
		"Time since a follower last heard from the leader (0 on the leader).")
	brokerSetsDesc  = newDesc(ControllerPrefix+"_broker_sets", "Broker sets in the replicated state.")
	masterEpochDesc = newDesc(ControllerPrefix+"_master_epoch", "Master epoch of each broker set.", "broker_set")
	peerErrorsDesc  = newDesc(raftPrefix+"transport_errors_total",
		"Outbound Raft RPCs that failed, by peer (a configured controller id, or other) and kind; "+
			"every attempt, whether its log line was written or summed up.", "peer", "kind")

	raftNumbers = []raftNumber{
		{key: "term", desc: newDesc(raftPrefix+"term", "Current Raft term.")},
		{key: "commit_index", desc: newDesc(raftPrefix+"commit_index", "Raft commit index.")},
		{key: "applied_index", desc: newDesc(raftPrefix+"applied_index", "Last Raft index applied to the FSM.")},
		{key: "last_log_index", desc: newDesc(raftPrefix+"last_log_index", "Last Raft log index.")},
		{key: "last_snapshot_index", desc: newDesc(raftPrefix+"last_snapshot_index", "Raft index of the last snapshot.")},
		{key: "fsm_pending", desc: newDesc(raftPrefix+"fsm_pending", "Committed entries waiting for the FSM.")},
		{key: "num_peers", desc: newDesc(raftPrefix+"peers", "Other voters in the Raft configuration.")},
		// The FSM's, read with the Raft stats.
		{key: "state_bytes", desc: newDesc(ControllerPrefix+"_state_bytes",
			"Accounted size of the replicated state (bounded by controllerMaxStateBytes).")},
		{key: "legacy_entries_applied", desc: newDesc(ControllerPrefix+"_legacy_entries_applied_total",
			"Log entries of an older version applied since start although they break the rules of the replicated state."),
			counter: true},
		{key: "cluster_version", desc: newDesc(ControllerPrefix+"_cluster_version",
			"Replicated cluster version: the newest Controller format the group writes.")},
		{key: "format_version", desc: newDesc(ControllerPrefix+"_format_version",
			"Newest Controller format (log entries, snapshots, Raft RPCs) this node reads.")},
		{key: "members_drift", desc: newDesc(ControllerPrefix+"_raft_members_drift",
			"1 when controllerRaftPeers differ from the Raft configuration the node holds (membership lives in the log).")},
		{key: "broker_sets_without_master", desc: newDesc(ControllerPrefix+"_broker_sets_without_master",
			"Broker sets whose sync state names no master.")},
		{key: "state_bytes_limit", desc: newDesc(ControllerPrefix+"_state_bytes_limit",
			"controllerMaxStateBytes in force (state_bytes is bounded by it).")},
		{key: "broker_sets_limit", desc: newDesc(ControllerPrefix+"_broker_sets_limit",
			"controllerMaxBrokerSets in force (broker_sets is bounded by it).")},
	}
)

// RaftPeerKinds are the kind label values of raft_transport_errors_total
// (raftstore's Kinds); others become LabelOther.
var RaftPeerKinds = []string{"heartbeat", "append_entries", "pipeline", "request_vote", "pre_vote",
	"install_snapshot", "timeout_now"}

// RaftPeerErrorCount is how many outbound Raft RPCs of Kind to Peer
// failed since the node started.
type RaftPeerErrorCount struct {
	Peer, Kind string
	Failed     uint64
}

// RaftPeerErrorSource is a ControllerSource that also counts its failed
// outbound Raft RPCs (raft_transport_errors_total). Peers must be
// bounded by the source (the configured ids, the rest as one).
type RaftPeerErrorSource interface {
	RaftPeerErrors() []RaftPeerErrorCount
}

// Describe implements prometheus.Collector.
func (sourceCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{raftStateDesc, raftLeaderDesc, lastContactDesc, brokerSetsDesc,
		masterEpochDesc, peerErrorsDesc} {
		ch <- d
	}
	for _, n := range raftNumbers {
		ch <- n.desc
	}
}

// Collect implements prometheus.Collector.
func (c sourceCollector) Collect(ch chan<- prometheus.Metric) {
	p := c.src.Load()
	if p == nil || *p == nil {
		return
	}
	collectRaft(ch, (*p).RaftStats())
	collectEpochs(ch, (*p).MasterEpochs())
	if ps, ok := (*p).(RaftPeerErrorSource); ok {
		collectPeerErrors(ch, ps.RaftPeerErrors())
	}
}

// collectPeerErrors writes one counter per (peer, kind), summing the
// counts whose labels fold together.
func collectPeerErrors(ch chan<- prometheus.Metric, counts []RaftPeerErrorCount) {
	type key struct{ peer, kind string }
	sums := map[key]uint64{}
	var order []key
	for _, c := range counts {
		k := key{strings.ToValidUTF8(c.Peer, "\uFFFD"), boundedLabel(c.Kind, RaftPeerKinds...)}
		if _, ok := sums[k]; !ok {
			order = append(order, k)
		}
		sums[k] += c.Failed
	}
	for _, k := range order {
		ch <- prometheus.MustNewConstMetric(peerErrorsDesc, prometheus.CounterValue, float64(sums[k]), k.peer, k.kind)
	}
}

func collectRaft(ch chan<- prometheus.Metric, st map[string]string) {
	if st == nil {
		return
	}
	state := boundedLabel(st["state"], raftStates...)
	for _, s := range raftStates {
		ch <- gaugeValue(raftStateDesc, boolFloat(s == state), s)
	}
	if id := st["leader_id"]; id != "" {
		ch <- gaugeValue(raftLeaderDesc, 1, id)
	}
	for _, n := range raftNumbers {
		v, err := strconv.ParseFloat(st[n.key], 64)
		switch {
		case err != nil:
		case n.counter:
			ch <- prometheus.MustNewConstMetric(n.desc, prometheus.CounterValue, v)
		default:
			ch <- gaugeValue(n.desc, v)
		}
	}
	if d, err := time.ParseDuration(st["last_contact"]); err == nil {
		ch <- gaugeValue(lastContactDesc, d.Seconds())
	}
}

func collectEpochs(ch chan<- prometheus.Metric, epochs map[string]int32) {
	ch <- gaugeValue(brokerSetsDesc, float64(len(epochs)))
	seen := make(map[string]bool, len(epochs))
	for _, name := range slices.Sorted(maps.Keys(epochs)) {
		label := strings.ToValidUTF8(name, "\uFFFD")
		if !seen[label] { // two invalid names may sanitize alike
			seen[label] = true
			ch <- gaugeValue(masterEpochDesc, float64(epochs[name]), label)
		}
	}
}
