package metrics

import (
	"maps"
	"slices"
	"strconv"
	"sync/atomic"
	"time"
)

// ControllerPrefix prefixes every Controller family.
const ControllerPrefix = "rocketmq_controller"

// ControllerRecorder receives the Controller's events. All methods may be
// called concurrently and return quickly. *Controller implements it.
type ControllerRecorder interface {
	// ElectionDone reports one finished election: trigger is "broker",
	// "admin", "inactive" or "scan" (others are counted as "other"); code
	// is the response code of its (last) attempt, 0 = a master was elected.
	ElectionDone(trigger string, code int32, elapsed time.Duration)
	// LeadershipChanged reports this node becoming a ready leader or
	// ceasing to be one.
	LeadershipChanged(ready bool)
	// Heartbeat reports one BROKER_HEARTBEAT received.
	Heartbeat()
	// NotifySent reports one NOTIFY_BROKER_ROLE_CHANGED delivery attempt.
	NotifySent(err error)
	// BrokersEvicted reports live brokers removed because their connection
	// closed.
	BrokersEvicted(n int)
}

// ControllerSource is read at scrape time. Both methods must be safe to
// call concurrently with the controller's work, and cheap.
type ControllerSource interface {
	// RaftStats is hashicorp/raft's Stats() map ("state", "term",
	// "commit_index", "applied_index", "last_log_index", ...), plus
	// "leader_id" when a leader is known.
	RaftStats() map[string]string
	// MasterEpochs maps each broker set (brokerName) to its master epoch.
	MasterEpochs() map[string]int32
}

// Controller holds the Controller's metrics; it implements
// ControllerRecorder.
type Controller struct {
	// Remoting is the remoting.Observer for the controller's
	// broker-facing server (rocketmq_controller_requests_total, ...).
	Remoting *Remoting

	elections    *CounterVec
	electionTime *HistogramVec
	leaderReady  *Gauge
	leaderChange *Counter
	heartbeats   *Counter
	notifies     *CounterVec
	evicted      *Counter
	source       atomic.Pointer[ControllerSource]
}

var _ ControllerRecorder = (*Controller)(nil)

// NewController registers the Controller families in reg. Raft and
// epoch families appear once SetSource was called.
func NewController(reg *Registry) *Controller {
	const p = ControllerPrefix
	c := &Controller{
		Remoting:     NewRemoting(reg, p),
		elections:    NewCounterVec(p+"_elections_total", "Master elections, by trigger and response code (0 = elected).", "trigger", "code"),
		electionTime: NewHistogramVec(p+"_election_duration_seconds", "Election time, by trigger.", LatencyBuckets, "trigger"),
		notifies:     NewCounterVec(p+"_role_change_notifications_total", "NOTIFY_BROKER_ROLE_CHANGED deliveries, by result.", "result"),
	}
	ready := NewGaugeVec(p+"_leader_ready", "1 while this node is the ready Raft leader.")
	changes := NewCounterVec(p+"_leadership_changes_total", "Times this node became or stopped being the ready leader.")
	hb := NewCounterVec(p+"_heartbeats_total", "BROKER_HEARTBEAT requests received.")
	ev := NewCounterVec(p+"_brokers_evicted_total", "Live brokers removed because their connection closed.")
	c.leaderReady, c.leaderChange, c.heartbeats, c.evicted = ready.With(), changes.With(), hb.With(), ev.With()
	reg.Register(c.elections, c.electionTime, c.notifies, ready, changes, hb, ev, CollectorFunc(c.collect))
	return c
}

// SetSource installs the scrape-time source (the running controller).
func (c *Controller) SetSource(src ControllerSource) { c.source.Store(&src) }

// ElectTriggers are the trigger label values; others become LabelOther.
var ElectTriggers = []string{"broker", "admin", "inactive", "scan"}

// ElectionDone implements ControllerRecorder.
func (c *Controller) ElectionDone(trigger string, code int32, elapsed time.Duration) {
	trigger = boundedLabel(trigger, ElectTriggers...)
	c.elections.With(trigger, ResponseCodeLabel(code)).Inc()
	c.electionTime.With(trigger).ObserveDuration(elapsed)
}

// LeadershipChanged implements ControllerRecorder.
func (c *Controller) LeadershipChanged(ready bool) {
	c.leaderReady.Set(boolFloat(ready))
	c.leaderChange.Inc()
}

// Heartbeat implements ControllerRecorder.
func (c *Controller) Heartbeat() { c.heartbeats.Inc() }

// NotifySent implements ControllerRecorder.
func (c *Controller) NotifySent(err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	c.notifies.With(result).Inc()
}

// BrokersEvicted implements ControllerRecorder.
func (c *Controller) BrokersEvicted(n int) {
	if n > 0 {
		c.evicted.Add(uint64(n))
	}
}

// collect adds the Raft and epoch families read from the source.
func (c *Controller) collect(w *Writer) {
	p := c.source.Load()
	if p == nil || *p == nil {
		return
	}
	collectRaft(w, (*p).RaftStats())
	collectEpochs(w, (*p).MasterEpochs())
}

// raftStates are the values of the state label of raft_state; a state
// not listed is reported as LabelOther.
var raftStates = []string{"Follower", "Candidate", "Leader", "Shutdown", LabelOther}

func collectRaft(w *Writer, st map[string]string) {
	if st == nil {
		return
	}
	const p = ControllerPrefix + "_raft_"
	state := boundedLabel(st["state"], raftStates...)
	for _, s := range raftStates {
		w.Gauge(p+"state", "1 for the node's current Raft state.", boolFloat(s == state), "state", s)
	}
	if id := st["leader_id"]; id != "" {
		w.Gauge(p+"leader", "1 labelled with the Raft leader this node knows.", 1, "leader_id", id)
	}
	for _, f := range raftNumbers {
		if v, err := strconv.ParseFloat(st[f.key], 64); err == nil {
			w.Gauge(p+f.name, f.help, v)
		}
	}
	if d, err := time.ParseDuration(st["last_contact"]); err == nil {
		w.Gauge(p+"last_contact_seconds", "Time since a follower last heard from the leader (0 on the leader).", d.Seconds())
	}
}

// raftNumbers are the numeric Raft stats exported as gauges.
var raftNumbers = []struct{ key, name, help string }{
	{"term", "term", "Current Raft term."},
	{"commit_index", "commit_index", "Raft commit index."},
	{"applied_index", "applied_index", "Last Raft index applied to the FSM."},
	{"last_log_index", "last_log_index", "Last Raft log index."},
	{"last_snapshot_index", "last_snapshot_index", "Raft index of the last snapshot."},
	{"fsm_pending", "fsm_pending", "Committed entries waiting for the FSM."},
	{"num_peers", "peers", "Other voters in the Raft configuration."},
}

func collectEpochs(w *Writer, epochs map[string]int32) {
	w.Gauge(ControllerPrefix+"_broker_sets", "Broker sets in the replicated state.", float64(len(epochs)))
	for _, name := range slices.Sorted(maps.Keys(epochs)) {
		w.Gauge(ControllerPrefix+"_master_epoch", "Master epoch of each broker set.", float64(epochs[name]), "broker_set", name)
	}
}
