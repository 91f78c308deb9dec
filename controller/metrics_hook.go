//go:build embedded_controller

package controller

import (
	"time"

	"github.com/rmqgo/nameserver/metrics"
	"github.com/rmqgo/nameserver/remoting"
)

// The metrics hook: WithMetrics feeds the controller's events into a
// metrics.ControllerRecorder, and ExportMetrics lets a metrics.Controller
// read Raft stats and master epochs at scrape time and count heartbeats.
//
//	m := metrics.NewController(reg)
//	ctl, err := controller.New(cfg, logger, controller.WithMetrics(m), ...)
//	... ctl.Start() ...
//	ctl.ExportMetrics(m)

// WithMetrics installs an Observer that reports to r. It replaces any
// WithObserver given before it (and is replaced by one given after).
func WithMetrics(r metrics.ControllerRecorder) Option {
	return WithObserver(metricsObserver{r})
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

// ExportMetrics makes m read this controller at scrape time (Raft stats
// with the leader's ID, master epoch per broker set) and count every
// BROKER_HEARTBEAT in m. Call it after Start returned.
func (c *Controller) ExportMetrics(m *metrics.Controller) {
	c.srv.Register(remoting.BrokerHeartbeat, func(conn *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		m.Heartbeat()
		return c.handleHeartbeat(conn, req)
	})
	m.SetSource(metricsSource{c})
}

// metricsSource implements metrics.ControllerSource.
type metricsSource struct{ c *Controller }

// RaftStats implements metrics.ControllerSource.
func (s metricsSource) RaftStats() map[string]string {
	n := s.c.node
	if n == nil {
		return nil
	}
	st := n.Stats()
	if id := n.LeaderID(); id != "" {
		st["leader_id"] = id
	}
	return st
}

// MasterEpochs implements metrics.ControllerSource.
func (s metricsSource) MasterEpochs() map[string]int32 {
	epochs := map[string]int32{}
	s.c.fsm.Read(func(st *State) {
		for _, name := range st.BrokerNames() {
			if ss, ok := st.SyncState(name); ok {
				epochs[name] = ss.MasterEpoch
			}
		}
	})
	return epochs
}
