//go:build embedded_controller

package controller

import (
	"errors"
	"time"

	"github.com/rmqgo/nameserver/metrics"
)

// The metrics hook: WithMetrics feeds the controller's events (elections,
// leadership, evictions, notifications, heartbeats) into a
// metrics.ControllerRecorder (and, for a *metrics.Controller, its
// requests and connections through the remoting Observer), and
// ExportMetrics lets a metrics.Controller read Raft stats and master
// epochs at scrape time.
//
//	m := metrics.NewController(reg)
//	ctl, err := controller.New(cfg, logger, controller.WithMetrics(m), ...)
//	... ctl.Start() ...
//	ctl.ExportMetrics(m)

// WithMetrics installs an Observer that reports to r. It replaces any
// WithObserver given before it (and is replaced by one given after). When
// r is a *metrics.Controller it also installs r.Remoting as the remoting
// server's observer (rocketmq_controller_requests_total, ...), replacing
// a WithRemotingObserver given before it.
func WithMetrics(r metrics.ControllerRecorder) Option {
	return func(o *options) {
		WithObserver(metricsObserver{r})(o)
		if m, ok := r.(*metrics.Controller); ok && m != nil {
			o.remoting = m.Remoting
			o.aclMetrics = m.ACL
			o.refusals = m.Refusals
		}
	}
}

// metricsObserver adapts metrics.ControllerRecorder to Observer.
type metricsObserver struct{ r metrics.ControllerRecorder }

// ElectionFinished implements Observer.
func (o metricsObserver) ElectionFinished(trigger ElectTrigger, code int32, elapsed time.Duration) {
	o.r.ElectionDone(string(trigger), code, elapsed)
}

// LeadershipChanged implements Observer.
func (o metricsObserver) LeadershipChanged(ready bool) { o.r.LeadershipChanged(ready) }

// ConnClosed implements Observer.
func (o metricsObserver) ConnClosed(_ ConnID, evicted int) { o.r.BrokersEvicted(evicted) }

// NotifySent implements Observer.
func (o metricsObserver) NotifySent(_ string, _ int32, err error) { o.r.NotifySent(err) }

// HeartbeatReceived implements Observer.
func (o metricsObserver) HeartbeatReceived() { o.r.Heartbeat() }

// RaftPeerErrors counts the failed outbound Raft RPCs of this node by
// peer and kind (metrics.RaftPeerErrorSource); nil before Start.
func (c *Controller) RaftPeerErrors() []metrics.RaftPeerErrorCount {
	if c.node == nil {
		return nil
	}
	counts := c.node.PeerErrors()
	out := make([]metrics.RaftPeerErrorCount, len(counts))
	for i, pc := range counts {
		out[i] = metrics.RaftPeerErrorCount{Peer: pc.Peer, Kind: pc.Kind, Failed: pc.Failed}
	}
	return out
}

// ExportMetrics makes m read this controller at scrape time (RaftStats,
// MasterEpochs, RaftPeerErrors).
func (c *Controller) ExportMetrics(m *metrics.Controller) {
	m.SetSource(c)
}

// LeaderKnown returns nil once this node knows a Raft leader (itself or
// another), the readiness of a controller's /readyz.
func (c *Controller) LeaderKnown() error {
	switch {
	case c.node == nil:
		return errors.New("raft not started")
	case c.node.LeaderID() == "":
		return errors.New("no raft leader known")
	}
	return nil
}
