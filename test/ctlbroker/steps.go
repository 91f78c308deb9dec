package ctlbroker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// flow is the state of one Run: the brokers and what the controllers
// should hold about their set.
type flow struct {
	cfg         FlowConfig
	start       time.Time
	brokers     []*Broker
	master      *Broker
	down        *Broker   // the failed master until it rejoins
	downAt      time.Time // when its connections closed
	masterEpoch int32
	ssEpoch     int32
	ss          []int64 // the sync-state set, sorted
	failover    time.Duration
}

// setupSteps are docs/controller.md section 7 steps 2-8: up to a master with
// a full sync-state set.
func (f *flow) setupSteps() []step {
	return []step{
		{"listen (127.0.0.1:0)", f.listen},
		{"find leader (1005)", f.findLeader},
		{"apply broker ids (1012/1013)", f.applyIDs},
		{"register (1003)", f.register},
		{"heartbeat (904) to every controller", f.heartbeat},
		{"elect first master (1002)", f.electFirst},
		{"register with NameServers (103)", f.registerNameServers},
		{"NameServer member group (901)", f.checkNameServers},
		{"grow sync-state set (1001)", f.growSyncStateSet},
		{"read back (1006)", f.readBack},
	}
}

func (f *flow) listen(context.Context) (string, error) {
	var addrs []string
	for range f.cfg.Brokers {
		b, err := New(Config{Cluster: f.cfg.Cluster, Name: f.cfg.BrokerName, Controllers: f.cfg.Controllers,
			NameServers: f.cfg.NameServers, HeartbeatTimeout: f.cfg.HeartbeatTimeout, Logger: f.cfg.Logger})
		if err != nil {
			return "", err
		}
		f.brokers = append(f.brokers, b)
		addrs = append(addrs, b.Addr())
	}
	return "brokers at " + strings.Join(addrs, " "), nil
}

func (f *flow) closeBrokers() {
	for _, b := range f.brokers {
		_ = b.Close()
	}
}

func (f *flow) findLeader(ctx context.Context) (string, error) {
	var leader string
	var meta *remoting.Command
	err := poll(ctx, func() error {
		if leader, meta = f.brokers[0].FindLeader(ctx); leader == "" {
			return errors.New("no controller names a leader")
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("leader %s@%s (group %s)", meta.ExtFields["controllerLeaderId"], leader, meta.ExtFields["group"]), nil
}

func (f *flow) applyIDs(ctx context.Context) (string, error) {
	ids := make([]int64, 0, len(f.brokers))
	for _, b := range f.brokers {
		id, err := b.ApplyID(ctx)
		if err != nil {
			return "", fmt.Errorf("%s: %w", b.Addr(), err)
		}
		if slices.Contains(ids, id) {
			return "", fmt.Errorf("id %d assigned twice", id)
		}
		ids = append(ids, id)
	}
	return "ids " + idText(ids), nil
}

// register expects a fresh set: no master before the first election.
func (f *flow) register(ctx context.Context) (string, error) {
	var ss wire.SyncStateSet
	for _, b := range f.brokers {
		resp, err := b.Register(ctx)
		if err != nil {
			return "", fmt.Errorf("broker %d: %w", b.ID(), err)
		}
		if id := resp.ExtFields["masterBrokerId"]; id != "" {
			return "", fmt.Errorf("broker set %s already has master %s; use a fresh broker name", f.cfg.BrokerName, id)
		}
		if ss, err = wire.DecodeSyncStateSet(resp.Body); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%d brokers registered, no master yet, ssEpoch %d", len(f.brokers), ss.SyncStateSetEpoch), nil
}

func (f *flow) heartbeat(ctx context.Context) (string, error) {
	for _, b := range f.brokers {
		if err := b.HeartbeatSync(ctx); err != nil {
			return "", fmt.Errorf("broker %d: %w", b.ID(), err)
		}
	}
	return fmt.Sprintf("%d brokers x %d controllers answered 0", len(f.brokers), len(f.cfg.Controllers)), nil
}

// electFirst: the first broker elects itself (first election: masterEpoch
// 1); the others get 2011 naming it. Then every broker beats periodically.
func (f *flow) electFirst(ctx context.Context) (string, error) {
	first, err := f.elect(ctx, f.brokers[0], remoting.Success)
	if err != nil {
		return "", err
	}
	if first.ID != f.brokers[0].ID() || first.Epoch != 1 {
		return "", fmt.Errorf("first election: got master %v, want %d with masterEpoch 1", first, f.brokers[0].ID())
	}
	for _, b := range f.brokers[1:] {
		if v, err := f.elect(ctx, b, remoting.ControllerMasterStillExist); err != nil || v != first {
			return "", fmt.Errorf("broker %d: %v (master %v, want %v)", b.ID(), err, v, first)
		}
	}
	f.master, f.masterEpoch, f.ssEpoch, f.ss = f.brokers[0], first.Epoch, first.SSEpoch, []int64{first.ID}
	for _, b := range f.brokers {
		b.SetEpoch(f.masterEpoch)
		b.StartHeartbeats(f.cfg.HeartbeatInterval)
	}
	return fmt.Sprintf("master %v; others 2011", first), nil
}

// elect sends b's 1002 and expects code want.
func (f *flow) elect(ctx context.Context, b *Broker, want int32) (MasterView, error) {
	resp, err := b.Elect(ctx)
	if err != nil {
		return MasterView{}, err
	}
	if err := expect("elect master (1002)", resp, want); err != nil {
		return MasterView{}, err
	}
	return ReadMaster(resp)
}

// registerNameServers registers every live broker in its role: the master
// as id 0, the slaves under their own ids, stateVersion = masterEpoch.
func (f *flow) registerNameServers(ctx context.Context) (string, error) {
	if len(f.cfg.NameServers) == 0 {
		return "skipped (no NameServer)", nil
	}
	for _, b := range f.live() {
		resps, err := b.RegisterNameServers(ctx, f.nsID(b), f.masterEpoch)
		if err != nil {
			return "", err
		}
		if err := f.checkSlaveAnswers(b, resps); err != nil {
			return "", err
		}
	}
	detail := fmt.Sprintf("master %d as id 0, stateVersion %d", f.master.ID(), f.masterEpoch)
	if slaves := f.slaveIDs(); len(slaves) > 0 {
		detail += fmt.Sprintf("; slaves %s told masterAddr %s", idText(slaves), f.master.Addr())
	}
	return detail, nil
}

// checkSlaveAnswers: a slave's 103 answer names the master it registered
// after.
func (f *flow) checkSlaveAnswers(b *Broker, resps []*remoting.Command) error {
	if b == f.master {
		return nil
	}
	for i, resp := range resps {
		if got := resp.ExtFields["masterAddr"]; got != f.master.Addr() {
			return fmt.Errorf("%s answered slave %d masterAddr %q, want %s", f.cfg.NameServers[i], b.ID(), got, f.master.Addr())
		}
	}
	return nil
}

// checkNameServers polls 901 on every NameServer until it lists exactly
// the live brokers in their roles.
func (f *flow) checkNameServers(ctx context.Context) (string, error) {
	if len(f.cfg.NameServers) == 0 {
		return "skipped (no NameServer)", nil
	}
	want := map[int64]string{}
	for _, b := range f.live() {
		want[f.nsID(b)] = b.Addr()
	}
	for _, ns := range f.cfg.NameServers {
		err := poll(ctx, func() error {
			got, err := f.master.MemberGroup(ctx, ns)
			if err == nil && !maps.Equal(got, want) {
				err = fmt.Errorf("%s lists %v, want %v", ns, got, want)
			}
			return err
		})
		if err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%d NameServers list %s", len(f.cfg.NameServers), groupText(want)), nil
}

// growSyncStateSet is the master's 1001 with every live broker (nothing
// to send when they are all in already: the controller would answer 2013).
func (f *flow) growSyncStateSet(ctx context.Context) (string, error) {
	ids := idsOf(f.live())
	if slices.Equal(ids, f.ss) {
		return fmt.Sprintf("syncStateSet %s already holds every live broker", idText(ids)), nil
	}
	resp, err := f.master.Alter(ctx, f.masterEpoch, f.ssEpoch, ids...)
	if err != nil {
		return "", err
	}
	if err := expect("alter sync-state set (1001)", resp, remoting.Success); err != nil {
		return "", err
	}
	ss, err := wire.DecodeSyncStateSet(resp.Body)
	if err != nil {
		return "", err
	}
	if ss.SyncStateSetEpoch != f.ssEpoch+1 || !slices.Equal(ss.SyncStateSet, ids) || resp.ExtFields["newSyncStateSetEpoch"] != fmt.Sprint(ss.SyncStateSetEpoch) {
		return "", fmt.Errorf("1001 answered %+v (header %v), want %s at ssEpoch %d", ss, resp.ExtFields, idText(ids), f.ssEpoch+1)
	}
	f.ssEpoch, f.ss = ss.SyncStateSetEpoch, ids
	return fmt.Sprintf("syncStateSet %s, ssEpoch %d", idText(ids), ss.SyncStateSetEpoch), nil
}

// readBack polls 1006 until it shows the tracked state with every live
// broker in sync and alive.
func (f *flow) readBack(ctx context.Context) (string, error) {
	var ri wire.ReplicasInfo
	err := poll(ctx, func() error {
		resp, err := f.master.SyncStateData(ctx)
		if err == nil {
			err = expect("get sync state data (1006)", resp, remoting.Success)
		}
		if err == nil {
			ri, err = DecodeReplicasInfo(resp.Body, f.cfg.BrokerName)
		}
		if err == nil {
			err = f.checkReplicas(ri)
		}
		return err
	})
	return replicasText(ri), err
}

// checkReplicas compares a 1006 view with the tracked state.
func (f *flow) checkReplicas(ri wire.ReplicasInfo) error {
	alive := make([]int64, 0, len(ri.InSyncReplicas))
	for _, r := range ri.InSyncReplicas {
		if r.Alive {
			alive = append(alive, r.BrokerID)
		}
	}
	slices.Sort(alive)
	if ri.MasterBrokerID == nil || *ri.MasterBrokerID != f.master.ID() || ri.MasterAddress == nil || *ri.MasterAddress != f.master.Addr() ||
		ri.MasterEpoch != f.masterEpoch || ri.SyncStateSetEpoch != f.ssEpoch || !slices.Equal(alive, idsOf(f.live())) {
		return fmt.Errorf("1006 shows %s, want master %d masterEpoch %d ssEpoch %d inSync %s all alive",
			replicasText(ri), f.master.ID(), f.masterEpoch, f.ssEpoch, idText(idsOf(f.live())))
	}
	return nil
}
