//go:build embedded_controller

package controller

import (
	"strconv"

	"github.com/rmqgo/nameserver/controller/wire"
)

// boundStats adds to a Raft stats map what alerting compares (metrics:
// rocketmq_controller_broker_sets_without_master, _state_bytes_limit and
// _broker_sets_limit): the broker sets whose sync state names no master,
// and the configured bounds of the replicated state (never above the hard
// ceilings).
func (c *Controller) boundStats(m map[string]string) {
	lim := limitsOf(c.config().StateBounds)
	m["state_bytes_limit"] = strconv.FormatInt(lim.StateBytes, 10)
	m["broker_sets_limit"] = strconv.Itoa(lim.BrokerSets)
	without := 0
	c.fsm.read(func(s *state) {
		for _, name := range s.BrokerNames() {
			if ss, ok := s.SyncState(name); ok && ss.MasterBrokerID == wire.NoBrokerID {
				without++
			}
		}
	})
	m["broker_sets_without_master"] = strconv.Itoa(without)
}
