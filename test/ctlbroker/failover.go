package ctlbroker

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// failoverSteps are docs/controller.md section 7 step 9: the master fails, a
// survivor is elected and notified, the NameServers follow, and the old
// master comes back as a slave.
func (f *flow) failoverSteps() []step {
	steps := []step{
		{"fail master (close conns, stop 904)", f.failMaster},
		{"new master notified (1008)", f.awaitNewMaster},
		{"replica info (1004)", f.replicaInfo},
		{"register with NameServers (103)", f.registerNameServers},
		{"NameServer member group (901)", f.checkNameServers},
		{"regrow sync-state set (1001)", f.growSyncStateSet},
		{"old master rejoins (1003/904)", f.rejoin},
		{"old master with NameServers (103/901)", f.rejoinNameServers},
		{"grow sync-state set (1001)", f.growSyncStateSet},
		{"read back (1006)", f.readBack},
	}
	if !f.cfg.Keep {
		steps = append(steps, step{"clean broker set (1011)", f.clean})
	}
	return steps
}

// failMaster stops the master's heartbeats and closes all its
// connections: the controllers see a crashed broker at once.
func (f *flow) failMaster(context.Context) (string, error) {
	f.down = f.master
	f.down.StopHeartbeats()
	f.downAt = time.Now()
	f.down.CloseConns()
	return fmt.Sprintf("broker %d@%s gone (its port stays open for the rejoin)", f.down.ID(), f.down.Addr()), nil
}

// awaitNewMaster waits for the 1008 naming masterEpoch+1 on every
// survivor's port and checks they agree on a survivor as master, with
// ssEpoch+1 and a sync-state set of just the new master.
func (f *flow) awaitNewMaster(ctx context.Context) (string, error) {
	var views []MasterView
	var took []string
	for _, b := range f.live() {
		n, err := b.WaitNotice(ctx, f.masterEpoch+1)
		if err != nil {
			return "", err
		}
		v, err := f.checkNotice(n)
		if err != nil {
			return "", fmt.Errorf("1008 on broker %d: %w", b.ID(), err)
		}
		views, took = append(views, v), append(took, fmt.Sprintf("broker %d +%s", b.ID(), ms(n.At.Sub(f.downAt))))
		f.failover = max(f.failover, n.At.Sub(f.downAt))
	}
	if err := f.adopt(views); err != nil {
		return "", err
	}
	return fmt.Sprintf("master %v; 1008 on %s", views[0], strings.Join(took, ", ")), nil
}

// checkNotice validates one 1008 against the state before the failover.
func (f *flow) checkNotice(n Notice) (MasterView, error) {
	v, err := ReadMaster(n.Req)
	if err != nil {
		return v, err
	}
	ss, err := wire.DecodeSyncStateSet(n.Req.Body)
	if err != nil {
		return v, err
	}
	if v.Epoch != f.masterEpoch+1 || v.SSEpoch != f.ssEpoch+1 || ss.SyncStateSetEpoch != v.SSEpoch || !slices.Equal(ss.SyncStateSet, []int64{v.ID}) {
		return v, fmt.Errorf("got %v body %+v, want masterEpoch %d ssEpoch %d and syncStateSet [master]",
			v, ss, f.masterEpoch+1, f.ssEpoch+1)
	}
	return v, nil
}

// adopt makes the notified master the tracked one; every survivor must
// have been told the same, and it must be a survivor.
func (f *flow) adopt(views []MasterView) error {
	for _, v := range views[1:] {
		if v != views[0] {
			return fmt.Errorf("survivors were told different masters: %v and %v", views[0], v)
		}
	}
	i := slices.IndexFunc(f.live(), func(b *Broker) bool { return b.ID() == views[0].ID })
	if i < 0 || f.live()[i].Addr() != views[0].Address {
		return fmt.Errorf("new master %v is not a survivor", views[0])
	}
	f.master, f.masterEpoch, f.ssEpoch, f.ss = f.live()[i], views[0].Epoch, views[0].SSEpoch, []int64{views[0].ID}
	for _, b := range f.live() {
		b.SetEpoch(f.masterEpoch)
	}
	return nil
}

// replicaInfo checks every survivor's 1004 against the new state.
func (f *flow) replicaInfo(ctx context.Context) (string, error) {
	for _, b := range f.live() {
		resp, err := b.ReplicaInfo(ctx)
		if err == nil {
			err = expect("get replica info (1004)", resp, remoting.Success)
		}
		if err != nil {
			return "", err
		}
		v, _ := ReadMaster(resp)
		ss, err := wire.DecodeSyncStateSet(resp.Body)
		if err != nil || v.ID != f.master.ID() || v.Address != f.master.Addr() || v.Epoch != f.masterEpoch || ss.SyncStateSetEpoch != f.ssEpoch {
			return "", fmt.Errorf("1004 to broker %d: %v body %+v (%v), want master %d masterEpoch %d ssEpoch %d",
				b.ID(), resp.ExtFields, ss, err, f.master.ID(), f.masterEpoch, f.ssEpoch)
		}
	}
	return fmt.Sprintf("survivors %s see master %d, masterEpoch %d, ssEpoch %d", idText(idsOf(f.live())), f.master.ID(), f.masterEpoch, f.ssEpoch), nil
}

// rejoin is the old master's restart with its saved id: 1003 names the
// new master, so it becomes a slave and beats again.
func (f *flow) rejoin(ctx context.Context) (string, error) {
	b := f.down
	resp, err := b.Register(ctx)
	if err != nil {
		return "", err
	}
	v, err := ReadMaster(resp)
	if err != nil || v.ID != f.master.ID() || v.Epoch != f.masterEpoch {
		return "", fmt.Errorf("1003 answered %v (%v), want master %d masterEpoch %d", resp.ExtFields, err, f.master.ID(), f.masterEpoch)
	}
	b.SetEpoch(f.masterEpoch)
	if err := b.HeartbeatSync(ctx); err != nil {
		return "", err
	}
	b.StartHeartbeats(f.cfg.HeartbeatInterval)
	f.down = nil
	return fmt.Sprintf("broker %d is slave of %v", b.ID(), v), nil
}

// rejoinNameServers registers everyone again (the rejoined slave new) and
// checks the NameServers' member group.
func (f *flow) rejoinNameServers(ctx context.Context) (string, error) {
	if _, err := f.registerNameServers(ctx); err != nil {
		return "", err
	}
	return f.checkNameServers(ctx)
}

func (f *flow) clean(ctx context.Context) (string, error) {
	for _, b := range f.brokers {
		b.StopHeartbeats()
	}
	if err := f.master.CleanBrokerData(ctx); err != nil {
		return "", err
	}
	return "broker set " + f.cfg.BrokerName + " removed from the controllers", nil
}

// live is the brokers that are up, the master first.
func (f *flow) live() []*Broker {
	out := make([]*Broker, 0, len(f.brokers))
	if f.master != nil && f.master != f.down {
		out = append(out, f.master)
	}
	for _, b := range f.brokers {
		if b != f.master && b != f.down {
			out = append(out, b)
		}
	}
	return out
}

// nsID is the brokerId b registers with the NameServers.
func (f *flow) nsID(b *Broker) int64 {
	if b == f.master {
		return MasterID
	}
	return b.ID()
}

// slaveIDs are the live brokers' ids but the master's.
func (f *flow) slaveIDs() []int64 { return idsOf(f.live()[1:]) }

// idsOf returns the brokers' ids, sorted.
func idsOf(bs []*Broker) []int64 {
	ids := make([]int64, len(bs))
	for i, b := range bs {
		ids[i] = b.ID()
	}
	slices.Sort(ids)
	return ids
}

// groupText is a member group as "{0:addr 2:addr}", ids ascending.
func groupText(g map[int64]string) string {
	parts := make([]string, 0, len(g))
	for _, id := range slices.Sorted(maps.Keys(g)) {
		parts = append(parts, strconv.FormatInt(id, 10)+":"+g[id])
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// idText is "[1 2 3]".
func idText(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
