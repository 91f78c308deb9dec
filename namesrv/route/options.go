package route

import (
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/rmqgo/nameserver/internal/monotime"
	"github.com/rmqgo/nameserver/namesrv/wire"
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
)

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
	NotifyMinBrokerIDChange func(n wire.MinBrokerIDChange)
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
