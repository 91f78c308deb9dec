//go:build embedded_controller

package raftstore

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"
)

// Online membership changes, one server at a time, on the leader: a new
// member joins as a non-voter and the leader promotes it once its log is
// within MaxPromoteLag entries of the leader's (promoter); a voter is
// removed, or moved to a new address, only while the servers that stay
// voters hold a live majority. A change is refused while another is
// pending (a non-voter not yet promoted, or a configuration entry not yet
// committed).

// MaxPromoteLag is how far behind the leader's last log index a non-voter
// may be when it is promoted to voter.
const MaxPromoteLag uint64 = 256

// MaxMembers bounds the servers of the configuration, voters and the
// pending non-voter (etcd advises at most 7 voters): an add past it is
// refused, so no caller grows the group, its probes and its replication
// without bound.
const MaxMembers = 9

// memberProbeTimeout bounds the leader's wait for one server's answer to
// the liveness probe; a server that does not answer in time counts as down.
const memberProbeTimeout = 2 * time.Second

// changeTimeout bounds raft's enqueueing of a configuration change.
const changeTimeout = 5 * time.Second

// Member is one server of the Raft configuration as the leader sees it.
type Member struct {
	ID       string `json:"id"`
	RaftAddr string `json:"raftAddr"`
	Voter    bool   `json:"voter"`
	Leader   bool   `json:"leader"`
	// Reachable reports that it answered the probe (the leader itself: true).
	Reachable bool `json:"reachable"`
	// LastIndex is its last log index as it answered (0 when unreachable).
	LastIndex uint64 `json:"lastIndex"`
}

// Membership is the leader's view of the Raft configuration.
type Membership struct {
	LeaderLastIndex uint64   `json:"leaderLastIndex"`
	Members         []Member `json:"members"`
}

// changes serialises the membership changes of one node.
type changes struct {
	mu sync.Mutex
	// pending and floor are the non-voter the promoter saw last and the
	// leader's last log index when it first saw it: the entry that added
	// it is at or below floor (guarded by mu).
	pending string
	floor   uint64
	// probing holds the probe running to each server: a probe that timed
	// out is left to the transport's timeout, and a second caller waits
	// for the running one instead of starting another, so a flood of list
	// requests leaves at most one probe per server running.
	probeMu  sync.Mutex
	probing  map[string]*probeFlight
	inflight atomic.Int64 // probes running (tests)
}

// probeFlight is one running probe; a is set before done is closed.
type probeFlight struct {
	done chan struct{}
	a    probeAnswer
}

// flight returns the running probe to p, starting one when none runs.
func (n *Node) flight(p Peer) *probeFlight {
	c := &n.members
	c.probeMu.Lock()
	defer c.probeMu.Unlock()
	if f := c.probing[p.ID]; f != nil {
		return f
	}
	if c.probing == nil {
		c.probing = map[string]*probeFlight{}
	}
	f := &probeFlight{done: make(chan struct{})}
	c.probing[p.ID] = f
	c.inflight.Add(1)
	go func() {
		f.a = probePeer(n.guard.Transport, p)
		c.probeMu.Lock()
		delete(c.probing, p.ID)
		c.inflight.Add(-1)
		c.probeMu.Unlock()
		close(f.done)
	}()
	return f
}

// Membership probes every server of the configuration and reports them;
// only the leader answers (ErrNotLeader).
func (n *Node) Membership(ctx context.Context) (Membership, error) {
	cfg, err := n.leaderConfiguration()
	if err != nil {
		return Membership{}, err
	}
	return n.probeMembers(ctx, cfg), nil
}

// leaderConfiguration is the latest configuration, on the leader only.
func (n *Node) leaderConfiguration() (raft.Configuration, error) {
	if err := n.stopped(); err != nil {
		return raft.Configuration{}, err
	}
	if !n.IsLeader() {
		return raft.Configuration{}, fmt.Errorf("%w: leader is %s", ErrNotLeader, n.LeaderID())
	}
	f := n.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return raft.Configuration{}, translate(err)
	}
	return f.Configuration(), nil
}

// Configuration is this node's latest Raft configuration (committed or not).
func (n *Node) Configuration() ([]Member, error) {
	f := n.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return nil, translate(err)
	}
	var out []Member
	for _, s := range f.Configuration().Servers {
		out = append(out, Member{ID: string(s.ID), RaftAddr: string(s.Address), Voter: s.Suffrage == raft.Voter})
	}
	return out, nil
}

// probeMembers asks every other server for its last log index, all at
// once, each bounded by memberProbeTimeout.
func (n *Node) probeMembers(ctx context.Context, cfg raft.Configuration) Membership {
	m := Membership{LeaderLastIndex: n.raft.LastIndex()}
	m.Members = make([]Member, len(cfg.Servers))
	for i, s := range cfg.Servers {
		m.Members[i] = Member{ID: string(s.ID), RaftAddr: string(s.Address), Voter: s.Suffrage == raft.Voter}
		if string(s.ID) == n.id {
			m.Members[i].Leader, m.Members[i].Reachable, m.Members[i].LastIndex = true, true, m.LeaderLastIndex
		}
	}
	var wg sync.WaitGroup
	for i, s := range cfg.Servers {
		if string(s.ID) == n.id {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := n.probeOnce(ctx, Peer{ID: string(s.ID), RaftAddr: string(s.Address)})
			m.Members[i].Reachable, m.Members[i].LastIndex = a.ok, a.last
		}()
	}
	wg.Wait()
	return m
}

// probeOnce is the answer of the running probe to p (flight), bounded by
// memberProbeTimeout and ctx: a server that does not answer in time
// counts as unreachable.
func (n *Node) probeOnce(ctx context.Context, p Peer) probeAnswer {
	f := n.flight(p)
	t := time.NewTimer(memberProbeTimeout)
	defer t.Stop()
	select {
	case <-f.done:
		return f.a
	case <-t.C:
	case <-ctx.Done():
	case <-n.stop:
	}
	return probeAnswer{peer: p.ID}
}

// answersNow probes p once more, apart from the running probes (a move
// must see the old address silent now); the caller holds members.mu, so
// at most one such probe per change runs.
func (n *Node) answersNow(p Peer) bool {
	ch := make(chan bool, 1)
	go func() { ch <- probePeer(n.guard.Transport, p).ok }()
	select {
	case ok := <-ch:
		return ok
	case <-time.After(memberProbeTimeout):
		return false // as a powered-off host: nothing answers in time
	case <-n.stop:
		return true
	}
}

// AddMember adds id at addr as a non-voter; the leader promotes it once it
// caught up. It refuses an id or address already in the configuration, a
// change while another is pending, and a node at addr that already holds
// a log (it bootstrapped a group of its own, or was a member before: its
// entries would not be this group's).
func (n *Node) AddMember(ctx context.Context, id, addr string) (uint64, error) {
	return n.change(ctx, func(m Membership) (raft.IndexFuture, error) {
		if p, ok := m.pending(); ok {
			return nil, fmt.Errorf("%w: non-voter %s is not promoted yet (remove it to give up)", ErrChangeInProgress, p.ID)
		}
		if err := m.room(); err != nil {
			return nil, err
		}
		for _, s := range m.Members {
			switch {
			case s.ID == id:
				return nil, fmt.Errorf("%w: %s is already a member (at %s)", ErrMemberChange, id, s.RaftAddr)
			case s.RaftAddr == addr:
				return nil, fmt.Errorf("%w: address %s is already member %s's", ErrMemberChange, addr, s.ID)
			}
		}
		if a := n.probeOnce(ctx, Peer{ID: id, RaftAddr: addr}); a.ok && a.last > 0 {
			return nil, fmt.Errorf("%w: the node at %s already holds a raft log (last index %d): a new member "+
				"starts with an empty data directory and peer lists naming the group", ErrMemberChange, addr, a.last)
		}
		n.logger.Info("adding member as non-voter", "member", id, "addr", addr)
		return n.raft.AddNonvoter(raft.ServerID(id), raft.ServerAddress(addr), 0, changeTimeout), nil
	})
}

// RemoveMember removes id. A voter is removed only when the voters that
// stay hold a live majority; the leader itself is never removed (stop it,
// let another node lead, then remove it).
func (n *Node) RemoveMember(ctx context.Context, id string) (uint64, error) {
	return n.change(ctx, func(m Membership) (raft.IndexFuture, error) {
		s, err := m.other(n.id, id)
		if err != nil {
			return nil, err
		}
		if s.Voter {
			if err := m.liveMajorityWithout(id); err != nil {
				return nil, err
			}
		}
		n.logger.Info("removing member", "member", id, "addr", s.RaftAddr, "voter", s.Voter)
		return n.raft.RemoveServer(raft.ServerID(id), 0, changeTimeout), nil
	})
}

// MoveMember records that id now listens at addr (a node moved with its
// data directory). The node must be stopped (its old address must not
// answer) and the other voters must hold a live majority.
func (n *Node) MoveMember(ctx context.Context, id, addr string) (uint64, error) {
	return n.change(ctx, func(m Membership) (raft.IndexFuture, error) {
		s, err := m.other(n.id, id)
		if err != nil {
			return nil, err
		}
		for _, o := range m.Members {
			if o.RaftAddr == addr {
				return nil, fmt.Errorf("%w: address %s is already member %s's", ErrMemberChange, addr, o.ID)
			}
		}
		if s.Reachable || n.answersNow(Peer{ID: s.ID, RaftAddr: s.RaftAddr}) {
			return nil, fmt.Errorf("%w: %s still answers at %s: stop it before moving it", ErrMemberChange, id, s.RaftAddr)
		}
		if err := m.liveMajorityWithout(id); err != nil {
			return nil, err
		}
		n.logger.Info("moving member", "member", id, "from", s.RaftAddr, "to", addr, "voter", s.Voter)
		if s.Voter {
			return n.raft.AddVoter(raft.ServerID(id), raft.ServerAddress(addr), 0, changeTimeout), nil
		}
		return n.raft.AddNonvoter(raft.ServerID(id), raft.ServerAddress(addr), 0, changeTimeout), nil
	})
}

// change runs one membership change: on the leader, one at a time, none
// while a non-voter waits for promotion (except removing or moving that
// non-voter), then waits for the entry to commit and returns its index.
// Raft itself holds a change back until the previous one committed (also
// one a previous leader appended), so prevIndex is not needed.
func (n *Node) change(ctx context.Context, plan func(Membership) (raft.IndexFuture, error)) (uint64, error) {
	if !n.members.mu.TryLock() {
		return 0, fmt.Errorf("%w: another membership change is running", ErrChangeInProgress)
	}
	defer n.members.mu.Unlock()
	cfg, err := n.leaderConfiguration()
	if err != nil {
		return 0, err
	}
	m := n.probeMembers(ctx, cfg)
	f, err := plan(m)
	if err == nil && f != nil {
		err = n.wait(ctx, f)
	}
	if err != nil {
		return 0, err
	}
	return f.Index(), nil
}

// room refuses an add to a configuration of MaxMembers servers.
func (m Membership) room() error {
	if len(m.Members) >= MaxMembers {
		return fmt.Errorf("%w: the group has %d members, at most %d", ErrMemberChange, len(m.Members), MaxMembers)
	}
	return nil
}

// pending is the non-voter waiting for promotion, if any.
func (m Membership) pending() (Member, bool) {
	i := slices.IndexFunc(m.Members, func(s Member) bool { return !s.Voter })
	if i < 0 {
		return Member{}, false
	}
	return m.Members[i], true
}

// other finds id, which must not be the leader self, and refuses while a
// non-voter other than id is pending.
func (m Membership) other(self, id string) (Member, error) {
	if id == self {
		return Member{}, fmt.Errorf("%w: %s is the leader: stop it so that another node leads, then ask again",
			ErrMemberChange, id)
	}
	i := slices.IndexFunc(m.Members, func(s Member) bool { return s.ID == id })
	if i < 0 {
		return Member{}, fmt.Errorf("%w: %s is not a member", ErrMemberChange, id)
	}
	if p, ok := m.pending(); ok && p.ID != id {
		return Member{}, fmt.Errorf("%w: non-voter %s is not promoted yet (remove it to give up)", ErrChangeInProgress, p.ID)
	}
	return m.Members[i], nil
}

// liveMajorityWithout refuses when the voters other than id, reachable
// now, are not a majority of the voters other than id.
func (m Membership) liveMajorityWithout(id string) error {
	rest, live := 0, 0
	for _, s := range m.Members {
		if s.Voter && s.ID != id {
			rest++
			if s.Reachable {
				live++
			}
		}
	}
	if rest == 0 || live < rest/2+1 {
		return fmt.Errorf("%w: without %s, %d of the %d remaining voters answer, a majority needs %d",
			ErrNoMajority, id, live, rest, rest/2+1)
	}
	return nil
}
