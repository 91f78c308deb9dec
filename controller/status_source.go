//go:build embedded_controller

package controller

import (
	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/metrics/statuspage"
)

var _ statuspage.ControllerSource = (*Controller)(nil)

// ControllerStatus implements statuspage.ControllerSource: the listeners,
// the Raft state and configuration this node holds, the cluster version
// and at most limit broker sets, copied under the FSM's read lock.
func (c *Controller) ControllerStatus(limit int) statuspage.Controller {
	out := statuspage.Controller{Format: c.fsm.readsFormat(), ClusterVersion: c.fsm.ClusterVersion(),
		Listeners: []statuspage.Listener{{Name: "Controller remoting", Addr: c.Addr()}}}
	c.fsm.read(func(s *state) { out.Sets, out.TotalSets = statusSets(s, limit) })
	if c.node == nil {
		out.MembersError = "raft not started"
		return out
	}
	out.Listeners = append(out.Listeners, statuspage.Listener{Name: "Controller Raft", Addr: c.node.Addr()})
	st := c.node.Stats()
	out.SelfID, out.LeaderID, out.RaftState, out.Term = c.node.ID(), c.node.LeaderID(), st["state"], st["term"]
	members, err := c.node.Configuration()
	if err != nil {
		out.MembersError = err.Error()
	}
	for _, m := range members {
		out.Members = append(out.Members, statuspage.Member{ID: m.ID, RaftAddr: m.RaftAddr,
			Addr: c.remotingAddrOf(m.ID), Voter: m.Voter})
	}
	return out
}

// statusSets copies at most limit broker sets of s, in name order, and
// counts them all.
func statusSets(s *state, limit int) ([]statuspage.BrokerSet, int) {
	names := s.BrokerNames()
	out := make([]statuspage.BrokerSet, 0, min(max(limit, 0), len(names)))
	for _, name := range names[:cap(out)] {
		r, _ := s.Replicas(name)
		ss, _ := s.SyncState(name)
		addr := func(id int64) string { return r.Brokers[id].Address }
		set := statuspage.BrokerSet{Name: name, Cluster: ss.ClusterName, MasterEpoch: ss.MasterEpoch,
			SyncStateSetEpoch: ss.SyncStateSetEpoch, HasMaster: ss.MasterBrokerID != wire.NoBrokerID,
			MasterID: ss.MasterBrokerID, MasterAddr: addr(ss.MasterBrokerID)}
		if set.Cluster == "" {
			set.Cluster = r.ClusterName
		}
		for _, id := range ss.SyncStateSet {
			set.SyncStateSet = append(set.SyncStateSet, statuspage.SyncMember{ID: id, Addr: addr(id)})
		}
		out = append(out, set)
	}
	return out, len(names)
}
