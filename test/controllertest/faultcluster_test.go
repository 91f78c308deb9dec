//go:build embedded_controller

package controllertest

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
)

// faultSet is the broker set of the fault tests.
const faultSet = "broker-f"

// The Raft transports of the fault clusters use raftstore.NewTCPTransport's
// pool size and I/O timeout: a shorter timeout makes elections flap when
// the machine is loaded (votes wait for the stable store's fsync).
const (
	raftPool      = 3
	raftIOTimeout = 10 * time.Second
)

// faultCluster is a three-node cluster whose nodes' disks (and, when
// proxied, Raft links) take injected faults, and whose nodes can be killed
// and restarted from their data dirs.
type faultCluster struct {
	*cluster
	disks    map[string]*raftstore.DiskFaults
	net      *network // nil: nodes dial each other directly
	triggers *triggerCounter
}

// triggerCounter counts the controller's own elections (T1/T2): they are
// not client operations, the linearizability check must know of them.
type triggerCounter struct {
	controller.NopObserver
	n atomic.Int64
}

// ElectionFinished implements controller.Observer.
func (o *triggerCounter) ElectionFinished(tr controller.ElectTrigger, _ int32, _ time.Duration) {
	if tr == controller.TriggerInactive || tr == controller.TriggerScan {
		o.n.Add(1)
	}
}

// startFaultCluster starts three nodes with fastProps plus props.
func startFaultCluster(t testing.TB, proxied bool, props ...string) *faultCluster {
	t.Helper()
	return startFaultClusterWith(t, proxied, raftstoretest.TestLogger(t, "fault"), nil, props...)
}

// startFaultClusterWith is startFaultCluster with the nodes logging to
// logger and tune (when set) adjusting each node's Raft config.
func startFaultClusterWith(t testing.TB, proxied bool, logger hclog.Logger, tune func(*raftstore.Config),
	props ...string) *faultCluster {
	t.Helper()
	fc := &faultCluster{disks: map[string]*raftstore.DiskFaults{}, triggers: &triggerCounter{}}
	if proxied {
		fc.net = newNetwork(t)
	}
	opts := []controller.Option{controller.WithObserver(fc.triggers),
		controller.WithRaftConfig(func(rc *raftstore.Config) {
			rc.DiskFaults = fc.disks[rc.SelfID]
			if tune != nil {
				tune(rc)
			}
		})}
	c := &cluster{t: t, logger: logger, opts: opts}
	fc.cluster = c
	const n = 3
	lns, rlns := make([]net.Listener, n), make([]net.Listener, n)
	var peers, raftPeers []string
	for i := range n {
		lns[i], rlns[i] = listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
		nd := &node{id: fmt.Sprintf("n%d", i), remoting: lns[i].Addr().String(), raft: rlns[i].Addr().String()}
		c.nodes = append(c.nodes, nd)
		fc.disks[nd.id] = &raftstore.DiskFaults{}
		peers = append(peers, nd.id+"-"+nd.remoting)
		raftPeers = append(raftPeers, nd.id+"-"+nd.raft)
	}
	fc.addLinks()
	dir := t.TempDir()
	for i, nd := range c.nodes {
		nd.path = writeProps(t, filepath.Join(dir, nd.id), nd.id, strings.Join(peers, ";"),
			strings.Join(raftPeers, ";"), append(append([]string{}, fastProps...), props...))
		c.start(nd, lns[i], fc.transport(nd, rlns[i]))
	}
	t.Cleanup(c.stopAll)
	t.Cleanup(fc.heal) // runs first: paused disks would block the shutdown
	return fc
}

func listen(t testing.TB, addr string) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	return ln
}

// addLinks starts the proxies of every ordered pair (proxied only).
func (fc *faultCluster) addLinks() {
	if fc.net == nil {
		return
	}
	for _, from := range fc.nodes {
		for _, to := range fc.nodes {
			if from != to {
				fc.net.addLink(from.id, to.id, to.raft)
			}
		}
	}
}

// transport is nd's Raft transport on ln.
func (fc *faultCluster) transport(nd *node, ln net.Listener) raft.Transport {
	if fc.net != nil {
		return fc.net.transport(nd.id, ln, fc.logger.Named(nd.id))
	}
	return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream: &streamLayer{Listener: ln, dial: func(addr string, timeout time.Duration) (net.Conn, error) {
			return net.DialTimeout("tcp", addr, timeout)
		}}, MaxPool: raftPool, Timeout: raftIOTimeout, Logger: fc.logger.Named(nd.id).Named("transport"),
	})
}

// heal clears every disk and network fault.
func (fc *faultCluster) heal() {
	for _, d := range fc.disks {
		d.Heal()
	}
	if fc.net != nil {
		fc.net.heal()
	}
}

// kill stops nd as a crash would: writes still waiting on its disk fail.
func (fc *faultCluster) kill(nd *node) {
	fc.disks[nd.id].Fail()
	fc.stop(nd)
}

// restart starts a killed node again from its data dir and addresses,
// with a healthy disk.
func (fc *faultCluster) restart(nd *node) {
	fc.t.Helper()
	fc.disks[nd.id].Heal()
	var ln, rln net.Listener
	require.Eventually(fc.t, func() bool {
		if ln == nil {
			ln, _ = net.Listen("tcp", nd.remoting)
		}
		if rln == nil {
			rln, _ = net.Listen("tcp", nd.raft)
		}
		return ln != nil && rln != nil
	}, waitLimit, 20*time.Millisecond, "rebind %s", nd.id)
	fc.start(nd, ln, fc.transport(nd, rln))
}

// followers are the running nodes but the ready leader.
func (fc *faultCluster) followers() []*node {
	leader := fc.leader()
	var out []*node
	for _, nd := range fc.running() {
		if nd != leader {
			out = append(out, nd)
		}
	}
	return out
}
