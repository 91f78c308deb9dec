//go:build embedded_controller

package controller

import (
	"sync"
	"time"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/internal/monotime"
)

// resendRecent is how far back a new leader re-sends the role changes of
// the elections this node applied (docs/controller.md section 3.5): the
// old leader sends a 1008 only after its entry applied there, so a leader
// that died within that span may have taken some 1008s with it. It covers
// an election timeout and a barrier many times over.
const resendRecent = 10 * time.Second

// recentElections remembers when this node last applied an election that
// made a master in each broker set (on the heartbeat clock), at most
// maxNotifyPending sets: more could not be queued for notifying anyway.
type recentElections struct {
	mu sync.Mutex
	at map[string]monotime.Mono
}

// note records an election of name at now, forgetting the ones older
// than resendRecent when the map is full.
func (r *recentElections) note(name string, now monotime.Mono) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.at == nil {
		r.at = map[string]monotime.Mono{}
	}
	if _, ok := r.at[name]; !ok && len(r.at) >= maxNotifyPending {
		r.pruneLocked(now)
		if len(r.at) >= maxNotifyPending {
			return
		}
	}
	r.at[name] = now
}

func (r *recentElections) pruneLocked(now monotime.Mono) {
	for name, at := range r.at {
		if now.Sub(at) > resendRecent {
			delete(r.at, name)
		}
	}
}

// since returns the sets elected within resendRecent of now and forgets
// the older ones.
func (r *recentElections) since(now monotime.Mono) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pruneLocked(now)
	names := make([]string, 0, len(r.at))
	for name := range r.at {
		names = append(names, name)
	}
	return names
}

// noteElected is the FSM's hook for an applied election that made a master.
func (c *Controller) noteElected(brokerName string) { c.recent.note(brokerName, c.hb.Now()) }

// resendRecentRoleChanges is run once by a new ready leader: for every set
// this node saw elect a master within resendRecent, it sends the set's
// current role (master, epochs, sync-state set, as 1004 would answer) by
// 1008 to its members alive here, if notifyBrokerRoleChanged and the
// master is alive here. A broker acts only on a master epoch above its
// own, so one already told ignores it.
func (c *Controller) resendRecentRoleChanges() {
	if !c.config().NotifyBrokerRoleChanged {
		return
	}
	names := c.recent.since(c.hb.Now())
	var entries []roleChangeNotifyEntry
	c.fsm.read(func(s *state) {
		for _, name := range names {
			if e, ok := currentRole(s, name); ok {
				entries = append(entries, e)
			}
		}
	})
	sent := 0
	for _, e := range entries {
		if !c.hb.IsActive(e.Group.Cluster, e.Group.BrokerName, e.MasterBrokerID) {
			continue // gone: the first scan elects anew and notifies that
		}
		for _, t := range e.Targets(c.hb) {
			c.notifier.send(t.Address, e)
			sent++
		}
	}
	if len(entries) > 0 {
		c.logger.Info("role changes of recent elections sent again", "sets", len(entries), "brokers", sent)
	}
}

// currentRole is the 1008 of name's current master; false when the set is
// gone or has no master.
func currentRole(s *state, name string) (roleChangeNotifyEntry, bool) {
	r, ss, ok := s.get(name)
	if !ok || ss.MasterBrokerID == wire.NoBrokerID {
		return roleChangeNotifyEntry{}, false
	}
	group := wire.BrokerMemberGroup{Cluster: r.ClusterName, BrokerName: r.BrokerName, BrokerAddrs: map[int64]string{}}
	for id, info := range r.Brokers {
		group.BrokerAddrs[id] = info.Address
	}
	addr, _ := r.address(ss.MasterBrokerID)
	return roleChangeNotifyEntry{Group: group, MasterAddress: addr, MasterBrokerID: ss.MasterBrokerID,
		MasterEpoch: ss.MasterEpoch, SyncStateSetEpoch: ss.SyncStateSetEpoch,
		SyncStateSet: wire.NormalizeIDs(ss.SyncStateSet)}, true
}
