//go:build embedded_controller

package controller

import (
	"context"
	"time"
)

// scanInactiveMasters is the leader's inactive-master scan loop: elect anew in each set whose
// master is inactive while a replica is alive. The first scan runs as soon
// as this node's heartbeat table is a complete view of liveness (at once
// on a node serving for viewWarmup), then one every interval.
func (c *Controller) scanInactiveMasters(ctx context.Context, interval time.Duration) {
	if !c.awaitViewComplete(ctx) {
		return
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		if c.IsReadyLeader() {
			c.scanOnce()
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// scanOnce starts the election loop of every set whose master is
// inactive here while one of its brokers is alive.
func (c *Controller) scanOnce() {
	var names []string
	c.fsm.read(func(s *state) { names = s.BrokerSetsNeedingReelect(c.hb) })
	if len(names) > 0 {
		c.logger.Info("inactive masters found by scan", "sets", len(names), "first", names[0])
	}
	for _, name := range names {
		c.startElection(name, TriggerScan)
	}
}
