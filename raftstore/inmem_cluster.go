//go:build embedded_controller

package raftstore

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// Timeouts used by StartInmemCluster: short, for fast in-memory elections.
const (
	inmemHeartbeat   = 100 * time.Millisecond
	inmemLease       = 50 * time.Millisecond
	inmemCommit      = 5 * time.Millisecond
	leaderWaitLimit  = 10 * time.Second
	leaderPollPeriod = 10 * time.Millisecond
)

// TB is the part of TB the in-memory cluster uses: this package
// does not import testing, so that no binary links it
// (raftstoretest.NewInmemCluster passes a *testing.T).
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
	Cleanup(f func())
}

// TestCluster is an in-memory Raft cluster (raft.InmemTransport,
// InmemStore, InmemSnapshotStore) for unit tests. Nodes are named n0..nN-1.
// Stores survive Kill, so Restart resumes from them. Methods are safe for
// concurrent use; the cluster is closed by t.Cleanup.
type TestCluster struct {
	mu      sync.Mutex
	newFSM  func(id string) raft.FSM
	opts    []func(*Config)
	logger  hclog.Logger
	peers   []Peer
	members []*member
}

type member struct {
	id       string
	addr     raft.ServerAddress
	store    *raft.InmemStore
	snaps    *raft.InmemSnapshotStore
	trans    *raft.InmemTransport
	fsm      raft.FSM
	node     *Node // nil while killed
	isolated bool
}

// StartInmemCluster starts n connected nodes, each with newFSM(id),
// bootstraps them and waits for a leader; the nodes log to logger. opts
// adjust each node's Config (e.g. SnapshotThreshold) after the in-memory
// defaults are set. Tests call it through raftstoretest.NewInmemCluster.
func StartInmemCluster(t TB, logger hclog.Logger, n int, newFSM func(id string) raft.FSM, opts ...func(*Config)) *TestCluster {
	t.Helper()
	c := &TestCluster{newFSM: newFSM, opts: opts, logger: logger}
	for i := range n {
		addr, trans := raft.NewInmemTransport("")
		m := &member{id: fmt.Sprintf("n%d", i), addr: addr, trans: trans,
			store: raft.NewInmemStore(), snaps: raft.NewInmemSnapshotStore()}
		c.members = append(c.members, m)
		c.peers = append(c.peers, Peer{ID: m.id, RaftAddr: string(addr)})
	}
	t.Cleanup(func() { c.closeAll(t) })
	c.mu.Lock()
	c.connectAll()
	for _, m := range c.members {
		c.startLocked(t, m)
	}
	c.mu.Unlock()
	c.Leader(t)
	return c
}

// startLocked opens m's node on its retained stores with a fresh FSM.
func (c *TestCluster) startLocked(t TB, m *member) {
	t.Helper()
	cfg := Config{SelfID: m.id, Peers: c.peers, Transport: m.trans, InMemory: true,
		Logger: c.logger.Named(m.id), HeartbeatTimeout: inmemHeartbeat,
		ElectionTimeout: inmemHeartbeat, LeaderLeaseTimeout: inmemLease, CommitTimeout: inmemCommit}
	for _, o := range c.opts {
		o(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("raftstore: test cluster config for %s: %v", m.id, err)
	}
	d := cfg.withDefaults()
	m.fsm = c.newFSM(m.id)
	p := &parts{logs: d.DiskFaults.wrap(m.store), stable: m.store, snaps: m.snaps, trans: m.trans,
		closers: []io.Closer{m.trans}}
	node, err := start(&d, m.fsm, p, d.Logger.Named("raft"))
	if err != nil {
		t.Fatalf("raftstore: start test node %s: %v", m.id, err)
	}
	m.node = node
}

func (c *TestCluster) reachable(m *member) bool { return m.node != nil && !m.isolated }

// connectAll connects every pair of running, non-isolated members.
func (c *TestCluster) connectAll() {
	for _, a := range c.members {
		for _, b := range c.members {
			if a != b && !a.isolated && !b.isolated && a.trans != nil && b.trans != nil {
				a.trans.Connect(b.addr, b.trans)
			}
		}
	}
}

// disconnect cuts m off from every other member, both directions.
func (c *TestCluster) disconnect(m *member) {
	for _, o := range c.members {
		if o != m && o.trans != nil {
			o.trans.Disconnect(m.addr)
		}
	}
	if m.trans != nil {
		m.trans.DisconnectAll()
	}
}

func (c *TestCluster) member(t TB, id string) *member {
	t.Helper()
	for _, m := range c.members {
		if m.id == id {
			return m
		}
	}
	t.Fatalf("raftstore: no test node %q", id)
	return nil
}

// IDs returns the node IDs in order.
func (c *TestCluster) IDs() []string {
	ids := make([]string, 0, len(c.peers))
	for _, p := range c.peers {
		ids = append(ids, p.ID)
	}
	return ids
}

// Node returns the running node with id, or nil if it is killed or unknown.
func (c *TestCluster) Node(id string) *Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.members {
		if m.id == id {
			return m.node
		}
	}
	return nil
}

// FSM returns the FSM instance most recently started for id (nil if unknown).
func (c *TestCluster) FSM(id string) raft.FSM {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.members {
		if m.id == id {
			return m.fsm
		}
	}
	return nil
}

// Leader waits until exactly one running, non-partitioned node is leader
// and all of them agree on it, and returns it; it fails t after 10 s.
func (c *TestCluster) Leader(t TB) *Node {
	t.Helper()
	return waitLeader(t, c.reachableNodes)
}

func (c *TestCluster) reachableNodes() []*Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*Node
	for _, m := range c.members {
		if c.reachable(m) {
			out = append(out, m.node)
		}
	}
	return out
}

// WaitForLeader waits until exactly one of nodes is leader and all of
// them name it as leader, and returns it; it fails t after 10 s. Use it
// for clusters built with Open rather than StartInmemCluster.
func WaitForLeader(t TB, nodes ...*Node) *Node {
	t.Helper()
	return waitLeader(t, func() []*Node { return nodes })
}

func waitLeader(t TB, nodes func() []*Node) *Node {
	t.Helper()
	var why string
	for deadline := time.Now().Add(leaderWaitLimit); time.Now().Before(deadline); {
		var leader *Node
		if leader, why = stableLeader(nodes()); leader != nil {
			return leader
		}
		time.Sleep(leaderPollPeriod)
	}
	t.Fatalf("raftstore: no stable leader within %s: %s", leaderWaitLimit, why)
	return nil
}

// stableLeader returns the single leader all nodes agree on, or why not.
func stableLeader(nodes []*Node) (*Node, string) {
	var leader *Node
	for _, n := range nodes {
		if n.IsLeader() {
			if leader != nil {
				return nil, fmt.Sprintf("both %s and %s lead", leader.id, n.id)
			}
			leader = n
		}
	}
	if leader == nil {
		return nil, "no node is leader"
	}
	for _, n := range nodes {
		if n.LeaderID() != leader.id {
			return nil, fmt.Sprintf("%s sees leader %q, not %s", n.id, n.LeaderID(), leader.id)
		}
	}
	return leader, ""
}

// Followers waits for a stable leader and returns the other running,
// non-partitioned nodes.
func (c *TestCluster) Followers(t TB) []*Node {
	t.Helper()
	leader := c.Leader(t)
	var out []*Node
	for _, n := range c.reachableNodes() {
		if n != leader {
			out = append(out, n)
		}
	}
	return out
}

// Partition isolates id from every other node until Heal.
func (c *TestCluster) Partition(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.members {
		if m.id == id {
			m.isolated = true
			c.disconnect(m)
		}
	}
}

// Heal reconnects every running node, ending all partitions.
func (c *TestCluster) Heal() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.members {
		m.isolated = false
	}
	c.connectAll()
}

// Kill closes id's node and disconnects it; its stores are kept.
func (c *TestCluster) Kill(t TB, id string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.member(t, id)
	if m.node == nil {
		t.Fatalf("raftstore: test node %s is already killed", id)
	}
	c.disconnect(m)
	if err := m.node.Close(); err != nil {
		t.Errorf("raftstore: close test node %s: %v", id, err)
	}
	m.node, m.trans = nil, nil
}

// Restart starts a killed node again on its retained stores with a fresh
// FSM from newFSM, reconnects it (unless partitioned) and returns it.
func (c *TestCluster) Restart(t TB, id string) *Node {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.member(t, id)
	if m.node != nil {
		t.Fatalf("raftstore: test node %s is running", id)
	}
	_, m.trans = raft.NewInmemTransport(m.addr)
	c.connectAll()
	c.startLocked(t, m)
	return m.node
}

func (c *TestCluster) closeAll(t TB) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.members {
		if m.node != nil {
			if err := m.node.Close(); err != nil {
				t.Errorf("raftstore: close test node %s: %v", m.id, err)
			}
			m.node, m.trans = nil, nil
		}
	}
}
