//go:build embedded_controller

package raftstore

import (
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// gatedTransport is an in-memory transport whose outgoing join probes to
// chosen peers wait until released: a peer that answers later than others.
type gatedTransport struct {
	*raft.InmemTransport
	mu       sync.Mutex
	gates    map[raft.ServerAddress]chan struct{}
	answered map[raft.ServerAddress]int // probes answered, per target
}

func (g *gatedTransport) AppendEntries(id raft.ServerID, target raft.ServerAddress,
	args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	if string(args.ID) != probeID {
		return g.InmemTransport.AppendEntries(id, target, args, resp)
	}
	g.mu.Lock()
	gate := g.gates[target]
	g.mu.Unlock()
	if gate != nil {
		<-gate
	}
	err := g.InmemTransport.AppendEntries(id, target, args, resp)
	if err == nil {
		g.mu.Lock()
		g.answered[target]++
		g.mu.Unlock()
	}
	return err
}

// hold makes probes to target wait; the returned func releases them.
func (g *gatedTransport) hold(target raft.ServerAddress) func() {
	gate := make(chan struct{})
	g.mu.Lock()
	g.gates[target] = gate
	g.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { close(gate) }) }
}

func (g *gatedTransport) answers(target raft.ServerAddress) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.answered[target]
}

// leaderLog records every node's leadership with its term, as raft
// enters the leader state, and remembers any term with two leaders.
type leaderLog struct {
	mu        sync.Mutex
	byTerm    map[uint64]string
	conflicts []string
}

func (l *leaderLog) observe(id string, term uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if other, ok := l.byTerm[term]; ok && other != id {
		l.conflicts = append(l.conflicts, fmt.Sprintf("term %d: %s and %s", term, other, id))
	}
	l.byTerm[term] = id
}

// String lists the leader of each term so far (for logs; safe while raft
// goroutines keep observing).
func (l *leaderLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprint(l.byTerm)
}

// conflicted reports whether some term had two leaders so far.
func (l *leaderLog) conflicted() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conflicts) > 0
}

// requireOneLeaderPerTerm fails t if any term had two leaders so far.
func (l *leaderLog) requireOneLeaderPerTerm(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	require.Empty(t, l.conflicts, "two leaders in one term (leaders by term: %v)", l.byTerm)
}

// probeCluster is an in-memory cluster whose empty nodes take the join
// probe path of Open (TestCluster bootstraps in-memory nodes at once).
// Stores survive kill; wipe replaces them with empty ones.
type probeCluster struct {
	t        *testing.T
	logger   hclog.Logger
	peers    []Peer
	every    time.Duration // JoinProbeInterval
	stores   map[string]*raft.InmemStore
	snaps    map[string]*raft.InmemSnapshotStore
	trans    map[string]*gatedTransport
	nodes    map[string]*Node
	timeouts map[string]time.Duration // heartbeat and election timeout
	apart    map[[2]string]bool       // links start does not connect
	leaders  *leaderLog
}

func newProbeCluster(t *testing.T, n int, every time.Duration) *probeCluster {
	c := &probeCluster{t: t, logger: testLogger(t, "probe"), every: every,
		stores: map[string]*raft.InmemStore{}, snaps: map[string]*raft.InmemSnapshotStore{},
		trans: map[string]*gatedTransport{}, nodes: map[string]*Node{},
		timeouts: map[string]time.Duration{}, apart: map[[2]string]bool{}, leaders: &leaderLog{byTerm: map[uint64]string{}}}
	for i := range n {
		id := fmt.Sprintf("n%d", i)
		c.peers = append(c.peers, Peer{ID: id, RaftAddr: id})
		c.wipe(id)
	}
	t.Cleanup(func() {
		for id := range c.nodes {
			c.kill(id)
		}
	})
	return c
}

// wipe gives id empty stores (id must not be running).
func (c *probeCluster) wipe(id string) {
	c.stores[id], c.snaps[id] = raft.NewInmemStore(), raft.NewInmemSnapshotStore()
}

// bootstrapStores writes the bootstrap configuration into every store:
// an existing cluster at term 1, as any version of this package leaves it.
func (c *probeCluster) bootstrapStores() {
	for _, p := range c.peers {
		cfg := c.config(p.ID, nil)
		_, trans := raft.NewInmemTransport(raft.ServerAddress(p.ID))
		require.NoError(c.t, raft.BootstrapCluster(cfg.raftConfig(c.logger), c.stores[p.ID],
			c.stores[p.ID], c.snaps[p.ID], trans, cfg.configuration()))
	}
}

func (c *probeCluster) config(id string, trans raft.Transport) Config {
	hb := c.timeouts[id]
	if hb == 0 {
		hb = inmemHeartbeat
	}
	cfg := Config{SelfID: id, Peers: c.peers, Transport: trans, Logger: c.logger.Named(id),
		HeartbeatTimeout: hb, ElectionTimeout: hb, LeaderLeaseTimeout: hb / 2,
		CommitTimeout: inmemCommit, JoinProbeInterval: c.every}
	return cfg.withDefaults()
}

// start opens id on its stores, connected to every running node except
// across cut links, and records its leaderships. Its probes to the peers
// in hold wait until release is called.
func (c *probeCluster) start(id string, hold ...string) (n *Node, release func()) {
	_, inner := raft.NewInmemTransport(raft.ServerAddress(id))
	gt := &gatedTransport{InmemTransport: inner, gates: map[raft.ServerAddress]chan struct{}{},
		answered: map[raft.ServerAddress]int{}}
	var releases []func()
	for _, h := range hold {
		releases = append(releases, gt.hold(raft.ServerAddress(h)))
	}
	release = func() {
		for _, r := range releases {
			r()
		}
	}
	c.t.Cleanup(release)
	c.trans[id] = gt
	for other, ot := range c.trans {
		if other != id && c.nodes[other] != nil && !c.apart[[2]string{id, other}] {
			inner.Connect(raft.ServerAddress(other), ot.InmemTransport)
			ot.Connect(raft.ServerAddress(id), inner)
		}
	}
	cfg := c.config(id, gt)
	p := &parts{logs: c.stores[id], stable: c.stores[id], snaps: c.snaps[id], trans: gt,
		closers: []io.Closer{gt}}
	n, err := start(&cfg, &counterFSM{}, p, cfg.Logger.Named("raft"))
	require.NoError(c.t, err)
	// Leaderships before this observer registers: none, raft is a
	// follower for at least a heartbeat timeout after start.
	n.raft.RegisterObserver(raft.NewObserver(nil, false, func(o *raft.Observation) bool {
		if s, ok := o.Data.(raft.RaftState); ok && s == raft.Leader {
			c.leaders.observe(id, o.Raft.CurrentTerm()) // runs on raft's goroutine, term is the election's
		}
		return false
	}))
	c.nodes[id] = n
	return n, release
}

// cut disconnects a and b both ways, now and on later starts.
func (c *probeCluster) cut(a, b string) {
	c.apart[[2]string{a, b}], c.apart[[2]string{b, a}] = true, true
	for _, l := range [][2]string{{a, b}, {b, a}} {
		if c.nodes[l[0]] != nil {
			c.trans[l[0]].Disconnect(raft.ServerAddress(l[1]))
		}
	}
}

// link ends a cut between a and b, connecting them if both run.
func (c *probeCluster) link(a, b string) {
	delete(c.apart, [2]string{a, b})
	delete(c.apart, [2]string{b, a})
	if c.nodes[a] != nil && c.nodes[b] != nil {
		c.trans[a].Connect(raft.ServerAddress(b), c.trans[b].InmemTransport)
		c.trans[b].Connect(raft.ServerAddress(a), c.trans[a].InmemTransport)
	}
}

func (c *probeCluster) kill(id string) {
	require.NoError(c.t, c.nodes[id].Close())
	delete(c.nodes, id)
}

// voteFrom asks node to, on behalf of candidate, vote in term for a log
// longer than any (a peer campaigning in that term), and reports whether
// it granted the vote.
func (c *probeCluster) voteFrom(node, candidate string, term uint64) bool {
	req := &raft.RequestVoteRequest{
		RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(candidate),
			Addr: []byte(candidate)},
		Term: term, LastLogIndex: 1 << 20, LastLogTerm: term,
	}
	var resp raft.RequestVoteResponse
	require.NoError(c.t, c.trans[candidate].RequestVote(raft.ServerID(node), raft.ServerAddress(node), req, &resp))
	return resp.Granted
}
