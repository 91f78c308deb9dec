//go:build embedded_controller

package controllertest

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
)

// waitLimit bounds every poll of these tests.
const waitLimit = 15 * time.Second

// fastProps are the Java tests' fast-failover settings (docs/controller.md
// section 7, last paragraph), adapted.
var fastProps = []string{
	"scanNotActiveBrokerInterval=300",
	"scanInactiveMasterInterval=1000",
}

// node is one controller of a test cluster; ctl is nil while stopped.
type node struct {
	id, remoting, raft string
	path               string // properties file
	ctl                *controller.Controller
	obs                *observer
}

// cluster is three real controller nodes on loopback.
type cluster struct {
	t      testing.TB
	logger hclog.Logger
	mu     sync.Mutex
	nodes  []*node
	opts   []controller.Option
}

// startCluster starts n nodes with the given extra properties.
func startCluster(t testing.TB, n int, props []string, opts ...controller.Option) *cluster {
	t.Helper()
	c := &cluster{t: t, logger: raftstoretest.TestLogger(t, "cluster"), opts: opts}
	lns := make([]net.Listener, n)
	trans := make([]raft.Transport, n)
	var peers, raftPeers []string
	for i := range n {
		var err error
		lns[i], err = net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		trans[i], err = raftstore.NewTCPTransport("127.0.0.1:0", "", c.logger)
		require.NoError(t, err)
		nd := &node{id: fmt.Sprintf("n%d", i), remoting: lns[i].Addr().String(),
			raft: string(trans[i].LocalAddr())}
		c.nodes = append(c.nodes, nd)
		peers = append(peers, nd.id+"-"+nd.remoting)
		raftPeers = append(raftPeers, nd.id+"-"+nd.raft)
	}
	dir := t.TempDir()
	for i, nd := range c.nodes {
		nd.path = writeProps(t, filepath.Join(dir, nd.id), nd.id, strings.Join(peers, ";"),
			strings.Join(raftPeers, ";"), props)
		c.start(nd, lns[i], trans[i])
	}
	t.Cleanup(c.stopAll)
	return c
}

// writeProps writes a node's controller.properties and returns its path.
func writeProps(t testing.TB, dir, id, peers, raftPeers string, props []string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o750))
	lines := append([]string{
		"controllerDLegerGroup=group1",
		"controllerDLegerPeers=" + peers,
		"controllerRaftPeers=" + raftPeers,
		"controllerDLegerSelfId=" + id,
		"controllerStorePath=" + filepath.Join(dir, "store"),
		"configStorePath=" + filepath.Join(dir, "controller.properties"),
	}, props...)
	path := filepath.Join(dir, "controller.properties")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	return path
}

// start loads nd's config and starts its controller on ln and tr.
func (c *cluster) start(nd *node, ln net.Listener, tr raft.Transport) {
	c.t.Helper()
	cfg, err := config.LoadController(nd.path)
	require.NoError(c.t, err)
	nd.obs = newObserver()
	opts := append([]controller.Option{controller.WithListener(ln), controller.WithRaftTransport(tr),
		controller.WithObserver(nd.obs)}, c.opts...)
	ctl, err := controller.New(cfg, c.logger.Named(nd.id), opts...)
	require.NoError(c.t, err)
	require.NoError(c.t, ctl.Start())
	c.mu.Lock()
	nd.ctl = ctl
	c.mu.Unlock()
}

// stop shuts nd down (a controller process dying, as far as peers and
// brokers can tell: its sockets close).
func (c *cluster) stop(nd *node) {
	c.t.Helper()
	c.mu.Lock()
	ctl := nd.ctl
	nd.ctl = nil
	c.mu.Unlock()
	if ctl != nil {
		require.NoError(c.t, ctl.Shutdown(context.Background()))
	}
}

func (c *cluster) stopAll() {
	for _, nd := range c.nodes {
		c.stop(nd)
	}
}

// restart starts a stopped node again on its old ports and store.
func (c *cluster) restart(nd *node) {
	c.t.Helper()
	var ln net.Listener
	var tr raft.Transport
	require.Eventually(c.t, func() bool {
		if ln == nil {
			ln, _ = net.Listen("tcp", nd.remoting)
		}
		if ln != nil && tr == nil {
			if t, err := raftstore.NewTCPTransport(nd.raft, "", c.logger); err == nil {
				tr = t
			}
		}
		return ln != nil && tr != nil
	}, waitLimit, 20*time.Millisecond, "rebind %s", nd.id)
	c.start(nd, ln, tr)
}

// running returns the nodes that are up.
func (c *cluster) running() []*node {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*node
	for _, nd := range c.nodes {
		if nd.ctl != nil {
			out = append(out, nd)
		}
	}
	return out
}

// leader waits until one running node is the ready leader.
func (c *cluster) leader() *node {
	c.t.Helper()
	var leader *node
	require.Eventually(c.t, func() bool {
		for _, nd := range c.running() {
			if nd.ctl.IsReadyLeader() {
				leader = nd
				return true
			}
		}
		return false
	}, waitLimit, 5*time.Millisecond, "no ready controller leader")
	return leader
}

// follower returns a running node that is not the ready leader.
func (c *cluster) follower() *node {
	c.t.Helper()
	leader := c.leader()
	for _, nd := range c.running() {
		if nd != leader {
			return nd
		}
	}
	c.t.Fatal("no follower running")
	return nil
}

// elections returns the elections every running node reported, node by
// node: the controller leader that ran one may have lost its leadership
// since.
func (c *cluster) elections() []string {
	var out []string
	for _, nd := range c.running() {
		_, _, e := nd.obs.counts()
		out = append(out, e...)
	}
	return out
}

// addrs returns every node's broker-facing address (controllerAddr).
func (c *cluster) addrs() []string {
	out := make([]string, 0, len(c.nodes))
	for _, nd := range c.nodes {
		out = append(out, nd.remoting)
	}
	return out
}

// observer counts what a controller reports.
type observer struct {
	controller.NopObserver
	mu        sync.Mutex
	closes    int
	evictions int
	elections []string
}

func newObserver() *observer { return &observer{} }

func (o *observer) ConnClosed(_ controller.ConnID, evicted int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closes++
	o.evictions += evicted
}

func (o *observer) ElectionFinished(tr controller.ElectTrigger, code int32, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.elections = append(o.elections, fmt.Sprintf("%s:%d", tr, code))
}

func (o *observer) counts() (closes, evictions int, elections []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.closes, o.evictions, append([]string(nil), o.elections...)
}
