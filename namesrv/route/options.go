package route

import (
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/internal/monotime"
)

// Defaults of the route manager (NamesrvConfig and RouteInfoManager constants).
const (
	// DefaultScanInterval is scanNotActiveBrokerInterval.
	DefaultScanInterval = 5 * time.Second
	// DefaultUnregisterQueueCap is unRegisterBrokerQueueCapacity.
	DefaultUnregisterQueueCap = 3000
	// DefaultBrokerTimeout is DEFAULT_BROKER_CHANNEL_EXPIRED_TIME, used when a
	// registration carries no heartbeatTimeoutMillis.
	DefaultBrokerTimeout = 120 * time.Second
	// MaxBrokerTimeout caps a broker-supplied heartbeatTimeoutMillis (one
	// hour), so that converting it to nanoseconds and adding it to the last
	// refresh cannot overflow into an instant expiry.
	MaxBrokerTimeout = time.Hour
	// HeartbeatTimeoutNone is RegisterRequest.HeartbeatTimeoutMillis for a
	// heartbeatTimeoutMillis of 0 or below: Java keeps it, so the broker
	// expires at the first scan after its last refresh.
	HeartbeatTimeoutNone int64 = -1
)

// Channel is a broker's connection. The manager compares channels by
// identity (==) and keys an index by them, so implementations must be
// comparable (pointer types are). A nil Channel is allowed and never closed.
type Channel interface {
	Close() error
}

// Settings are the NamesrvConfig switches the route tables read at use
// time, so a live config update takes effect on the next mutation.
type Settings struct {
	// DeleteTopicWithBrokerRegistration removes a broker's queues of topics
	// missing from its registration (docs/protocol.md section 4.2 step 10b).
	DeleteTopicWithBrokerRegistration bool
	// NotifyMinBrokerIDChanged enables the 905 notifications.
	NotifyMinBrokerIDChanged bool
}

// Options configure a Manager. Zero values take the defaults above.
type Options struct {
	Settings           func() Settings // read at use time; nil = all false
	ScanInterval       time.Duration   // default 5s
	UnregisterQueueCap int             // default 3000
	Logger             hclog.Logger    // default: discard
	// Clock's monotonic reading decides every expiry, so a wall-clock step
	// expires no broker and keeps none alive; default monotime.System.
	Clock monotime.Clock
	// NotifyMinBrokerIDChange is called outside the coordinator, on the
	// mutating goroutine, with each 905 NOTIFY_MIN_BROKER_ID_CHANGE to send.
	// The namesrv layer sends it; it should not block (send asynchronously).
	NotifyMinBrokerIDChange func(n MinBrokerIDChange)
}

func (o Options) withDefaults() Options {
	if o.Settings == nil {
		o.Settings = func() Settings { return Settings{} }
	}
	if o.ScanInterval <= 0 {
		o.ScanInterval = DefaultScanInterval
	}
	if o.UnregisterQueueCap <= 0 {
		o.UnregisterQueueCap = DefaultUnregisterQueueCap
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	if o.Clock == nil {
		o.Clock = monotime.System
	}
	return o
}

// MinBrokerIDChange is one NOTIFY_MIN_BROKER_ID_CHANGE (905) to send oneway
// to every address of TargetAddrs. Empty strings mean null header fields.
type MinBrokerIDChange struct {
	TargetAddrs       []string
	MinBrokerID       int64
	MinBrokerAddr     string
	OfflineBrokerAddr string
	HABrokerAddr      string
}

// RegisterRequest is a decoded REGISTER_BROKER.
type RegisterRequest struct {
	ClusterName, BrokerAddr, BrokerName, HAServerAddr, ZoneName string
	BrokerID                                                    int64
	// HeartbeatTimeoutMillis: 0 = absent (DefaultBrokerTimeout), negative
	// = HeartbeatTimeoutNone; capped at MaxBrokerTimeout.
	HeartbeatTimeoutMillis int64
	EnableActingMaster     *bool // nil = old-version broker
	Body                   *RegisterBody
	Channel                Channel
	// BodyDigest, when set, is recorded with the live entry so that a
	// byte-identical re-registration can use RegisterUnchanged.
	BodyDigest BodyDigest
}

// RegisterResult is what REGISTER_BROKER answers in its header; empty
// strings are omitted.
type RegisterResult struct {
	HAServerAddr, MasterAddr string
}

// UnregisterRequest is a decoded UNREGISTER_BROKER.
type UnregisterRequest struct {
	ClusterName, BrokerAddr, BrokerName string
	BrokerID                            int64
}

// Stats are counters of the route tables.
type Stats struct {
	Topics, Brokers, Clusters, LiveBrokers int
	UnregisterQueueDepth                   int
	UnregisterDrops                        uint64 // Unregister refused: queue full
	Registrations                          uint64 // RegisterBroker calls and RegisterUnchanged successes
	Expiries                               uint64 // live entries found expired
	Unregistrations                        uint64 // unregister requests applied
	StaleUnregistrations                   uint64 // skipped: the live entry has a newer generation
	Publications                           uint64 // topic snapshots rebuilt or withdrawn
	UnchangedRegistrations                 uint64 // registrations applied by RegisterUnchanged
}
