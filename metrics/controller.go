package metrics

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
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
	// ACL counts requests the ACL check denied
	// (rocketmq_controller_acl_denied_total).
	ACL *ACL
	// Refusals counts brokers' registrations refused by the rules and
	// bounds of the replicated state
	// (rocketmq_controller_broker_registrations_refused_total).
	Refusals *Refusals

	elections    *CounterVec
	electionTime *HistogramVec
	leaderReady  prometheus.Gauge
	leaderChange prometheus.Counter
	heartbeats   prometheus.Counter
	notifies     *CounterVec
	evicted      prometheus.Counter
	source       atomic.Pointer[ControllerSource]
}

var _ ControllerRecorder = (*Controller)(nil)

// NewController registers the Controller families in reg. Raft and
// epoch families appear once SetSource was called.
func NewController(reg *Registry) *Controller {
	const p = ControllerPrefix
	c := &Controller{
		Remoting:     NewRemoting(reg, p),
		ACL:          NewACL(reg, p),
		Refusals:     NewRefusals(reg, p),
		elections:    NewCounterVec(p+"_elections_total", "Master elections, by trigger and response code (0 = elected).", "trigger", "code"),
		electionTime: NewHistogramVec(p+"_election_duration_seconds", "Election time, by trigger.", LatencyBuckets, "trigger"),
		notifies:     NewCounterVec(p+"_role_change_notifications_total", "NOTIFY_BROKER_ROLE_CHANGED deliveries, by result.", "result"),
		leaderReady:  prometheus.NewGauge(prometheus.GaugeOpts{Name: p + "_leader_ready", Help: "1 while this node is the ready Raft leader."}),
		leaderChange: newCounter(p+"_leadership_changes_total", "Times this node became or stopped being the ready leader."),
		heartbeats:   newCounter(p+"_heartbeats_total", "BROKER_HEARTBEAT requests received."),
		evicted:      newCounter(p+"_brokers_evicted_total", "Live brokers removed because their connection closed."),
	}
	reg.Register(c.elections, c.electionTime, c.notifies, c.leaderReady, c.leaderChange,
		c.heartbeats, c.evicted, sourceCollector{&c.source})
	return c
}

func newCounter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
}

// SetSource installs the scrape-time source (the running controller).
func (c *Controller) SetSource(src ControllerSource) { c.source.Store(&src) }

// ElectTriggers are the trigger label values; others become LabelOther.
var ElectTriggers = []string{"broker", "admin", "inactive", "scan"}

// ElectionDone implements ControllerRecorder.
func (c *Controller) ElectionDone(trigger string, code int32, elapsed time.Duration) {
	trigger = boundedLabel(trigger, ElectTriggers...)
	c.elections.With(trigger, ResponseCodeLabel(code)).Inc()
	observeDuration(c.electionTime.With(trigger), elapsed)
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
		c.evicted.Add(float64(n))
	}
}
