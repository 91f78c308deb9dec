//go:build embedded_controller

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/raftstore"
)

// Bounds of the in-process Controller group.
const (
	ctlNodes       = 3
	ctlLeaderWait  = 30 * time.Second
	ctlStopTimeout = 10 * time.Second
)

// ctlNode is one Controller node of the group; ctl is nil once stopped.
type ctlNode struct {
	id, remoting string
	faults       *raftstore.DiskFaults // zero value: injects nothing, counts log writes
	ctl          *controller.Controller
}

// ctlGroup is three Controller nodes in this process on loopback, each
// with its own bbolt Raft store in a temporary directory.
type ctlGroup struct {
	mu    sync.Mutex
	nodes []*ctlNode
	dir   string
}

// startCtlGroup starts the three nodes and waits for a ready leader.
func startCtlGroup(co ctlOptions, log hclog.Logger) (*ctlGroup, error) {
	dir, err := os.MkdirTemp("", "loadgen-ctlstorm-")
	if err != nil {
		return nil, err
	}
	g := &ctlGroup{dir: dir}
	lns := make([]net.Listener, ctlNodes)
	trans := make([]raft.Transport, ctlNodes)
	var peers, raftPeers []string
	raftLog := log.Named("raft")
	for i := range ctlNodes {
		if lns[i], err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return nil, g.closeWith(err)
		}
		id := "n" + strconv.Itoa(i)
		withNodeLabel(id, func() { trans[i], err = raftstore.NewTCPTransport("127.0.0.1:0", "", raftLog) })
		if err != nil {
			return nil, g.closeWith(err)
		}
		nd := &ctlNode{id: id, remoting: lns[i].Addr().String(), faults: &raftstore.DiskFaults{}}
		g.nodes = append(g.nodes, nd)
		peers = append(peers, nd.id+"-"+nd.remoting)
		raftPeers = append(raftPeers, nd.id+"-"+string(trans[i].LocalAddr()))
	}
	for i, nd := range g.nodes {
		cfg, err := g.nodeConfig(nd, co, strings.Join(peers, ";"), strings.Join(raftPeers, ";"))
		if err != nil {
			return nil, g.closeWith(err)
		}
		faults := nd.faults
		opts := []controller.Option{controller.WithListener(lns[i]), controller.WithRaftTransport(trans[i]),
			controller.WithRaftConfig(func(c *raftstore.Config) { c.DiskFaults = faults })}
		if co.electWindow >= 0 {
			opts = append(opts, controller.WithElectionWindow(co.electWindow))
		}
		ctl, err := controller.New(cfg, log.Named(nd.id), opts...)
		if err == nil {
			withNodeLabel(nd.id, func() { err = ctl.Start() })
		}
		if err != nil {
			return nil, g.closeWith(fmt.Errorf("start controller %s: %w", nd.id, err))
		}
		nd.ctl = ctl
	}
	if _, err := g.waitLeader(ctlLeaderWait); err != nil {
		return nil, g.closeWith(err)
	}
	return g, nil
}

// nodeConfig writes nd's controller.properties and loads it.
func (g *ctlGroup) nodeConfig(nd *ctlNode, co ctlOptions, peers, raftPeers string) (*config.ControllerConfig, error) {
	dir := filepath.Join(g.dir, nd.id)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	lines := []string{
		"controllerDLegerGroup=loadgen",
		"controllerDLegerPeers=" + peers,
		"controllerRaftPeers=" + raftPeers,
		"controllerDLegerSelfId=" + nd.id,
		"controllerStorePath=" + filepath.Join(dir, "store"),
		"configStorePath=" + filepath.Join(dir, "controller.properties"),
		"scanNotActiveBrokerInterval=" + strconv.FormatInt(co.scan.Milliseconds(), 10),
		"scanInactiveMasterInterval=1000",
	}
	path := filepath.Join(dir, "controller.properties")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		return nil, err
	}
	return config.LoadController(path)
}

// addrs are the nodes' broker-facing addresses (controllerAddr).
func (g *ctlGroup) addrs() []string {
	out := make([]string, 0, len(g.nodes))
	for _, nd := range g.nodes {
		out = append(out, nd.remoting)
	}
	return out
}

// leader returns the running node that is the ready leader, or nil.
func (g *ctlGroup) leader() *ctlNode {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, nd := range g.nodes {
		if nd.ctl != nil && nd.ctl.IsReadyLeader() {
			return nd
		}
	}
	return nil
}

// waitLeader polls for a ready leader until limit.
func (g *ctlGroup) waitLeader(limit time.Duration) (*ctlNode, error) {
	deadline := time.Now().Add(limit)
	for {
		if nd := g.leader(); nd != nil {
			return nd, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no ready controller leader within %v", limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop shuts nd down (its sockets close: a dead process as peers and
// brokers see it).
func (g *ctlGroup) stop(nd *ctlNode) error {
	g.mu.Lock()
	ctl := nd.ctl
	nd.ctl = nil
	g.mu.Unlock()
	if ctl == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), ctlStopTimeout)
	defer cancel()
	return ctl.Shutdown(ctx)
}

// raftMark is the group's Raft usage at one moment.
type raftMark struct {
	lastIndex uint64
	term      uint64
	writes    map[string]int
}

// mark reads the highest last log index of the running nodes and every
// node's log-write count.
func (g *ctlGroup) mark() raftMark {
	m := raftMark{writes: map[string]int{}}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, nd := range g.nodes {
		m.writes[nd.id] = nd.faults.Writes()
		if nd.ctl != nil {
			stats := nd.ctl.RaftStats()
			if v, err := strconv.ParseUint(stats["last_log_index"], 10, 64); err == nil {
				m.lastIndex = max(m.lastIndex, v)
			}
			if v, err := strconv.ParseUint(stats["term"], 10, 64); err == nil {
				m.term = max(m.term, v)
			}
		}
	}
	return m
}

// since is the Raft usage from m to now; leader names whose writes count
// as the leader's (the leader at the end; a killed leader's are added).
func (g *ctlGroup) since(m raftMark, leaders ...string) ctlRaftUse {
	now := g.mark()
	u := ctlRaftUse{Entries: now.lastIndex - m.lastIndex, Terms: now.term - m.term}
	for id, w := range now.writes {
		d := w - m.writes[id]
		u.LogWritesAll += d
		for _, l := range leaders {
			if l == id {
				u.LogWrites += d
			}
		}
	}
	return u
}

// ends describes every node at the end of the run.
func (g *ctlGroup) ends() []ctlNodeEnd {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []ctlNodeEnd
	for _, nd := range g.nodes {
		e := ctlNodeEnd{ID: nd.id, Running: nd.ctl != nil, LogWrites: nd.faults.Writes()}
		if nd.ctl != nil {
			e.LastIndex, _ = strconv.ParseUint(nd.ctl.RaftStats()["last_log_index"], 10, 64)
		}
		out = append(out, e)
	}
	return out
}

// close stops every node and removes the stores.
func (g *ctlGroup) close() {
	for _, nd := range g.nodes {
		_ = g.stop(nd)
	}
	_ = os.RemoveAll(g.dir)
}

func (g *ctlGroup) closeWith(err error) error {
	g.close()
	return err
}

// leaderID is the ready leader's id ("" if none).
func (g *ctlGroup) leaderID() string {
	if nd := g.leader(); nd != nil {
		return nd.id
	}
	return ""
}
