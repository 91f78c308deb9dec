//go:build embedded_controller

package controller

import (
	"net"
	"time"

	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/tlsconf"
)

// ConnID identifies the connection a heartbeat arrived on (0: unknown).
type ConnID = liveness.ConnID

// Clock is the time source of liveness decisions (injectable in tests).
type Clock = liveness.Clock

// Timing of the leader-side machinery (docs/controller.md sections 1.1,
// 3.1, 3.5 and 5).
const (
	// requestTimeout bounds a leader-gated request from enqueue to the
	// applied entry (Java's future.get(5 s)); beyond it the reply is code 1.
	requestTimeout = 5 * time.Second
	// electAttemptTimeout bounds one controller-triggered election attempt.
	electAttemptTimeout = 3 * time.Second
	// notifyTimeout bounds one NOTIFY_BROKER_ROLE_CHANGED delivery.
	notifyTimeout = 3 * time.Second
	// schedulerQueueSize is the capacity of the leader's event queue
	// (Java's EventScheduler); a full queue answers SYSTEM_BUSY.
	schedulerQueueSize = 1024
	// maxOwnElections bounds the live tasks of the controller's own
	// elections apart from schedulerQueueSize: one loop runs per stored
	// set, and there are at most config.MaxControllerBrokerSets sets.
	maxOwnElections = config.MaxControllerBrokerSets
	// maxTaskBytes bounds the summed weight of the live request tasks
	// (taskKeys.weight: a request's frame bytes, or its decoded size when
	// larger): a stranger's tasks waiting behind a held set, their callers
	// gone, keep their decoded requests. A task that would pass it is
	// answered SYSTEM_BUSY, except when no weighed task is live: one
	// request alone is always admitted, so the bound is
	// max(maxTaskBytes, one request). Own elections weigh 0.
	maxTaskBytes = 64 << 20
	// heartbeatFirstScan is Java's initial delay of the heartbeat scan.
	heartbeatFirstScan = 2 * time.Second
	// leaderRecheck is how often leadership is reconciled besides LeaderCh.
	leaderRecheck = 100 * time.Millisecond
)

// Option adjusts a Controller built by New.
type Option func(*options)

type options struct {
	listener  net.Listener
	transport raft.Transport
	node      *raftstore.Node
	fsm       *FSM
	raftTune  func(*raftstore.Config)
	observer  Observer
	version   int32
	persist   func(*config.ControllerConfig) error
	clock     Clock
	remoting  remoting.Observer
	// aclMetrics counts ACL denials (set by WithMetrics; nil counts nothing).
	aclMetrics *metrics.ACL
	// refusals counts refused registrations (WithMetrics; nil counts nothing).
	refusals *metrics.Refusals
	tls      *tlsconf.Manager // nil: plaintext only (WithTLS)
	// versionPoll is the leader's cluster-version poll (clusterversion.go).
	versionPoll time.Duration
	// electionWindow is the group-commit window of triggered elections
	// (election_window.go).
	electionWindow time.Duration
}

func buildOptions(opts []Option) options {
	o := options{observer: NopObserver{}, version: remoting.CurrentVersion,
		persist: (*config.ControllerConfig).Persist, electionWindow: defaultElectionWindow}
	for _, fn := range opts {
		fn(&o)
	}
	return o
}

// WithListener serves the broker-facing remoting protocol on ln instead of
// binding the self entry of controllerDLegerPeers (tests on port 0). The
// controller takes ownership of ln.
func WithListener(ln net.Listener) Option { return func(o *options) { o.listener = ln } }

// WithRaftTransport runs Raft on t instead of binding the self entry of
// controllerRaftPeers. The controller takes ownership of t.
func WithRaftTransport(t raft.Transport) Option { return func(o *options) { o.transport = t } }

// WithRaftNode runs the controller on an already open Raft node whose FSM
// is fsm (e.g. a raftstore.NewInmemCluster member). The caller keeps
// ownership of the node: Shutdown does not close it.
func WithRaftNode(n *raftstore.Node, f *FSM) Option {
	return func(o *options) { o.node, o.fsm = n, f }
}

// WithRaftConfig lets fn adjust the raftstore.Config before the node is
// opened (timeouts, snapshot thresholds).
func WithRaftConfig(fn func(*raftstore.Config)) Option { return func(o *options) { o.raftTune = fn } }

// WithObserver installs metrics hooks.
func WithObserver(obs Observer) Option {
	return func(o *options) {
		if obs != nil {
			o.observer = obs
		}
	}
}

// WithResponseVersion sets the version field of every response and of the
// 1008 notifications. The default is remoting.CurrentVersion (479), what a
// NameServer-embedded Java 5.3 controller sends; Java's standalone
// mqcontroller sends 0. Brokers ignore the field.
func WithResponseVersion(v int32) Option { return func(o *options) { o.version = v } }

// WithConfigPersister replaces how an UPDATE_CONTROLLER_CONFIG result is
// persisted (default: ControllerConfig.Persist to configStorePath).
func WithConfigPersister(fn func(*config.ControllerConfig) error) Option {
	return func(o *options) {
		if fn != nil {
			o.persist = fn
		}
	}
}

// WithRemotingObserver installs the remoting server's metrics hooks
// (requests by code and response code, connections, rejected frames).
func WithRemotingObserver(obs remoting.Observer) Option { return func(o *options) { o.remoting = obs } }

// WithClock sets the heartbeat manager's clock (tests): its monotonic
// reading decides liveness, its wall reading only stamps display fields.
func WithClock(c Clock) Option { return func(o *options) { o.clock = c } }

// ElectTrigger says who asked for an election (docs/controller.md section 3.1).
type ElectTrigger string

// Election triggers.
const (
	// TriggerBroker is a 1002 sent by a broker for itself.
	TriggerBroker ElectTrigger = "broker"
	// TriggerAdmin is a 1002 with designateElect=true.
	TriggerAdmin ElectTrigger = "admin"
	// TriggerInactive is the leader reacting to its master going inactive:
	// heartbeat expiry or connection close (the inactive-broker trigger).
	TriggerInactive ElectTrigger = "inactive"
	// TriggerScan is the leader's periodic inactive-master scan.
	TriggerScan ElectTrigger = "scan"
)

// Observer receives the controller's metrics hooks. All methods may be
// called concurrently and must not block. Embed NopObserver to implement
// only some of them.
type Observer interface {
	// ElectionFinished reports one election: a 1002 request, or a whole
	// controller-triggered retry loop (code of its last attempt).
	ElectionFinished(trigger ElectTrigger, code int32, elapsed time.Duration)
	// LeadershipChanged reports this node becoming a ready leader (after
	// the barrier) or ceasing to be one.
	LeadershipChanged(ready bool)
	// ConnClosed reports a closed broker-facing connection once the
	// heartbeat manager has handled it; evicted counts the brokers whose
	// live entry it removed (0 for a stale connection).
	ConnClosed(conn ConnID, evicted int)
	// NotifySent reports one NOTIFY_BROKER_ROLE_CHANGED delivery attempt.
	NotifySent(addr string, masterEpoch int32, err error)
	// HeartbeatReceived reports one BROKER_HEARTBEAT (904) received, valid
	// or not.
	HeartbeatReceived()
}

// NopObserver implements Observer by doing nothing.
type NopObserver struct{}

// ElectionFinished implements Observer.
func (NopObserver) ElectionFinished(ElectTrigger, int32, time.Duration) {}

// LeadershipChanged implements Observer.
func (NopObserver) LeadershipChanged(bool) {}

// ConnClosed implements Observer.
func (NopObserver) ConnClosed(ConnID, int) {}

// NotifySent implements Observer.
func (NopObserver) NotifySent(string, int32, error) {}

// HeartbeatReceived implements Observer.
func (NopObserver) HeartbeatReceived() {}

var _ Observer = NopObserver{}
