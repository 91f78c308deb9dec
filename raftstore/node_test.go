//go:build embedded_controller

package raftstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// tcpCluster is a cluster of Open-ed nodes on real loopback TCP and disk.
type tcpCluster struct {
	t      *testing.T
	logger hclog.Logger
	peers  []Peer
	dirs   map[string]string
	fsms   map[string]*counterFSM
	nodes  map[string]*Node
	tweak  func(*Config)
}

// newTCPCluster binds n transports on 127.0.0.1:0 first, so the peers'
// real addresses are known, then opens (and bootstraps) every node.
func newTCPCluster(t *testing.T, n int, tweak func(*Config)) *tcpCluster {
	c, transports := bindTCPCluster(t, n, tweak)
	for _, p := range c.peers {
		c.open(p.ID, transports[p.ID])
	}
	return c
}

// bindTCPCluster binds the transports of an n-node cluster and opens none.
func bindTCPCluster(t *testing.T, n int, tweak func(*Config)) (*tcpCluster, map[string]raft.Transport) {
	c := &tcpCluster{t: t, logger: testLogger(t, "tcp"), dirs: map[string]string{},
		fsms: map[string]*counterFSM{}, nodes: map[string]*Node{}, tweak: tweak}
	transports := map[string]raft.Transport{}
	for i := range n {
		id := fmt.Sprintf("n%d", i)
		trans, err := NewTCPTransport("127.0.0.1:0", "", c.logger.Named(id))
		require.NoError(t, err)
		transports[id] = trans
		c.peers = append(c.peers, Peer{ID: id, RaftAddr: string(trans.LocalAddr())})
		c.dirs[id] = t.TempDir()
	}
	t.Cleanup(c.closeAll)
	return c, transports
}

// open starts id with a fresh FSM; a nil transport re-binds its address.
func (c *tcpCluster) open(id string, trans raft.Transport) *Node {
	cfg := Config{SelfID: id, Peers: c.peers, Dir: c.dirs[id], Transport: trans,
		Logger: c.logger.Named(id)}
	if trans == nil {
		cfg.BindAddr = c.addr(id)
	}
	if c.tweak != nil {
		c.tweak(&cfg)
	}
	c.fsms[id] = &counterFSM{}
	n, err := Open(cfg, c.fsms[id])
	require.NoError(c.t, err)
	c.nodes[id] = n
	return n
}

func (c *tcpCluster) addr(id string) string {
	for _, p := range c.peers {
		if p.ID == id {
			return p.RaftAddr
		}
	}
	return ""
}

func (c *tcpCluster) running() []*Node {
	var out []*Node
	for _, p := range c.peers {
		if n := c.nodes[p.ID]; n != nil {
			out = append(out, n)
		}
	}
	return out
}

func (c *tcpCluster) kill(id string) {
	require.NoError(c.t, c.nodes[id].Close())
	delete(c.nodes, id)
}

func (c *tcpCluster) closeAll() {
	for id := range c.nodes {
		c.kill(id)
	}
}

// applyN applies "1" n times on leader and returns the last response.
func applyN(t *testing.T, leader *Node, n int) int64 {
	t.Helper()
	var last interface{}
	for range n {
		resp, err := leader.Apply(context.Background(), []byte("1"))
		require.NoError(t, err)
		last = resp
	}
	return last.(int64)
}

func TestTCPClusterElectsAndFailsOver(t *testing.T) {
	began := time.Now()
	c := newTCPCluster(t, 3, nil)
	// Opened one after the other, each without waiting for the others:
	// a majority answers empty, so at least two bootstrap (a late one may
	// find the new leader's log and join instead); none stays undecided.
	leader := WaitForLeader(t, c.running()...)
	t.Logf("first start: %s leads %s after the first Open", leader.ID(), time.Since(began))
	require.Eventually(t, func() bool {
		boot := 0
		for _, n := range c.running() {
			if n.Stats()["vote_guard"] == "undecided" {
				return false
			}
			if n.Bootstrapped() {
				boot++
			}
		}
		return boot >= 2
	}, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, int64(10), applyN(t, leader, 10))
	for _, f := range c.fsms {
		eventuallyValue(t, f, 10)
	}

	killed := time.Now()
	c.kill(leader.ID())
	next := waitServing(t, c.running())
	elapsed := time.Since(killed)
	// Speed belongs to the benchmarks; a test only logs it.
	t.Logf("failover: %s served a write %s after %s was closed", next.ID(), elapsed, leader.ID())
	require.NotEqual(t, leader.ID(), next.ID())
	require.Equal(t, int64(12), applyN(t, next, 1))
}

// waitServing polls until one of nodes is leader and commits a write
// (which adds 1 to the counter).
func waitServing(t *testing.T, nodes []*Node) *Node {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		for _, n := range nodes {
			if !n.IsLeader() {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_, err := n.Apply(ctx, []byte("1"))
			cancel()
			if err == nil {
				return n
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no node became a serving leader within 10s")
	return nil
}

func TestTCPRestartRestoresSnapshotAndLog(t *testing.T) {
	c := newTCPCluster(t, 3, func(cfg *Config) {
		cfg.SnapshotThreshold, cfg.TrailingLogs = 20, 5
		cfg.SnapshotInterval = 50 * time.Millisecond
	})
	leader := WaitForLeader(t, c.running()...)
	require.Equal(t, int64(50), applyN(t, leader, 50))
	for _, p := range c.peers {
		eventuallyValue(t, c.fsms[p.ID], 50)
		requireSnapshotAndTruncation(t, c.nodes[p.ID], c.dirs[p.ID])
	}
	require.Equal(t, int64(55), applyN(t, leader, 5)) // in the log only
	for _, f := range c.fsms {
		eventuallyValue(t, f, 55)
	}

	c.closeAll()
	for _, p := range c.peers {
		n := c.open(p.ID, nil)
		require.False(t, n.Bootstrapped(), "restart must not bootstrap again")
		require.Equal(t, 1, c.fsms[p.ID].Restores(), "snapshot restored on open")
		require.Equal(t, int64(50), c.fsms[p.ID].Value(), "state from the snapshot")
	}
	leader = WaitForLeader(t, c.running()...)
	for _, f := range c.fsms {
		eventuallyValue(t, f, 55) // the log after the snapshot is replayed
	}
	require.Equal(t, int64(56), applyN(t, leader, 1))
}

// requireSnapshotAndTruncation forces a snapshot and checks that the log
// no longer starts at index 1 and that snapshot files exist on disk.
func requireSnapshotAndTruncation(t *testing.T, n *Node, dir string) {
	t.Helper()
	if err := n.Snapshot(); err != nil {
		require.ErrorIs(t, err, raft.ErrNothingNewToSnapshot)
	}
	first, err := n.parts.logs.FirstIndex()
	require.NoError(t, err)
	require.Greater(t, first, uint64(1), "log not truncated")
	snapIdx, err := strconv.ParseUint(n.Stats()["last_snapshot_index"], 10, 64)
	require.NoError(t, err)
	require.GreaterOrEqual(t, snapIdx, first, "log must start at or before the snapshot")
	entries, err := os.ReadDir(filepath.Join(dir, "snapshots"))
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	require.LessOrEqual(t, len(entries), snapshotRetain)
	require.FileExists(t, filepath.Join(dir, logFileName))
}

func TestOpenBindFailureNamesAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	addr := ln.Addr().String()
	_, err = Open(Config{SelfID: "n0", Peers: []Peer{{"n0", addr}}, Dir: t.TempDir(),
		BindAddr: addr, Logger: testLogger(t, "bind")}, &counterFSM{})
	require.ErrorIs(t, err, ErrBind)
	require.ErrorContains(t, err, addr)
}

func TestOpenRejectsSelfAddressMismatch(t *testing.T) {
	logger := testLogger(t, "mismatch")
	trans, err := NewTCPTransport("127.0.0.1:0", "", logger)
	require.NoError(t, err)
	_, err = Open(Config{SelfID: "n0", Peers: []Peer{{"n0", "127.0.0.1:1"}}, InMemory: true,
		Transport: trans, Logger: logger}, &counterFSM{})
	require.ErrorIs(t, err, ErrInvalidConfig)
	require.ErrorContains(t, err, string(trans.LocalAddr()))
	require.True(t, trans.IsShutdown(), "Open owns the transport even on failure")
}

func TestApplyErrors(t *testing.T) {
	c := newTCPCluster(t, 3, nil)
	leader := WaitForLeader(t, c.running()...)
	for _, n := range c.running() {
		if n != leader {
			_, err := n.Apply(context.Background(), []byte("1"))
			require.ErrorIs(t, err, ErrNotLeader)
			require.ErrorIs(t, err, raft.ErrNotLeader)
			require.ErrorIs(t, n.Barrier(context.Background()), ErrNotLeader)
		}
	}
	_, err := leader.Apply(context.Background(), []byte("not a number"))
	var numErr *strconv.NumError
	require.True(t, errors.As(err, &numErr), "FSM error response returned as error: %v", err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = leader.Apply(ctx, []byte("1"))
	require.ErrorIs(t, err, ErrTimeout)
	require.NoError(t, leader.Barrier(context.Background()))

	id := leader.ID()
	c.kill(id)
	require.NoError(t, leader.Close(), "Close is idempotent")
	_, err = leader.Apply(context.Background(), []byte("1"))
	require.ErrorIs(t, err, ErrClosed)
}
