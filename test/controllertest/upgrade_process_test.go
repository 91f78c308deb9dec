//go:build embedded_controller

package controllertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// The rolling-upgrade test (docs/upgrading.md): three cmd/namesrv
// processes with the Controller embedded, built from previousRelease, with
// controller-mode brokers (the fault suite's workload: register, heartbeat,
// elect, alter, read, 1008) and route lookups running throughout. The
// nodes are replaced one at a time (followers first, the leader last):
// SIGTERM, then this tree's binary on the same data directory and
// properties file. Every lookup succeeds, no moment passes without a Raft
// leader longer than leaderlessBound, and the fault suite's invariants
// hold over every reply and 1008. Once the last node runs the new binary
// the cluster version becomes 2 (and the cluster version entry, type 66,
// is in every log exactly once); with one node left on the old binary it
// stays 1, no type 66 entry is ever written and the old node never stops.

// leaderlessBound is "one election" on a loaded two-core machine: a
// follower's election timeout (500 ms), a pre-vote and a vote round, with
// the slack of targetNewLeaderServes (3 s) the failover tests allow, plus
// a SIGTERMed leader's graceful stop, which does not hand leadership over.
const leaderlessBound = 5 * time.Second

// upNode is one NameServer+Controller process of the upgrade test.
type upNode struct {
	id, dir, props, ctl, ns string
	newBin                  bool
	proc                    *process
}

// upCluster is the three nodes, the binaries and what their logs said.
type upCluster struct {
	t        *testing.T
	old, new string
	nodes    []*upNode
	// ownElections counts the controller's own elections (fault suite);
	// stops counts lines of a node that stopped applying; held counts the
	// new leader's "cluster version held" lines.
	ownElections, stops, held atomic.Int64
	// denied counts ACL denials (any node); sign signs the test's 1005
	// requests (nil: unsigned); heldLines are the "cluster version held"
	// lines.
	denied    atomic.Int64
	sign      func(*remoting.Command)
	heldMu    sync.Mutex
	heldLines []string
}

func startUpCluster(t *testing.T, oldBin, newBin string) *upCluster {
	return startUpClusterWith(t, oldBin, newBin, nil)
}

// startUpClusterWith starts the three nodes on the old binary with extra
// added to every node's properties.
func startUpClusterWith(t *testing.T, oldBin, newBin string, extra []string) *upCluster {
	uc := &upCluster{t: t, old: oldBin, new: newBin}
	var peers, raftPeers, nsAddrs []string
	for i := range 3 {
		nd := &upNode{id: fmt.Sprintf("n%d", i), ctl: freeAddr(t), ns: freeAddr(t)}
		uc.nodes = append(uc.nodes, nd)
		peers = append(peers, nd.id+"-"+nd.ctl)
		raftPeers = append(raftPeers, nd.id+"-"+freeAddr(t))
		nsAddrs = append(nsAddrs, nd.ns)
	}
	root := t.TempDir()
	for _, nd := range uc.nodes {
		_, port, _ := strings.Cut(nd.ns, ":")
		nd.dir = filepath.Join(root, nd.id)
		nd.props = writeProps(t, nd.dir, nd.id, strings.Join(peers, ";"), strings.Join(raftPeers, ";"),
			append([]string{"enableControllerInNamesrv=true", "bindAddress=127.0.0.1", "listenPort=" + port,
				"kvConfigPath=" + filepath.Join(nd.dir, "kvConfig.json"), "enableShutdownGracefully=true",
				"shutdownWaitTimeSeconds=1", "warmupForwardPeers=" + strings.Join(nsAddrs, ";")}, append(extra, fastProps...)...))
		uc.start(nd, false)
	}
	return uc
}

// start runs nd on the old or the new binary.
func (uc *upCluster) start(nd *upNode, newBin bool) {
	bin, tag := uc.old, "old"
	if newBin {
		bin, tag = uc.new, "new"
	}
	nd.newBin = newBin
	w := &upWriter{logWriter: logWriter{t: uc.t, prefix: nd.id + "/" + tag}, uc: uc}
	uc.t.Cleanup(w.stop)
	nd.proc = startProcessTo(uc.t, nd.id, w, bin, "-c", nd.props)
}

// upWriter is a logWriter that counts the lines the test watches.
type upWriter struct {
	logWriter
	uc *upCluster
}

func (w *upWriter) Write(p []byte) (int, error) {
	s := string(p)
	if strings.Contains(s, "controller-triggered election finished") {
		w.uc.ownElections.Add(1)
	}
	if strings.Contains(s, "cannot apply log entry") || strings.Contains(s, "failed to decode log entry") ||
		strings.Contains(s, "panic:") {
		w.uc.stops.Add(1)
	}
	if strings.Contains(s, "request denied") {
		w.uc.denied.Add(1)
	}
	if strings.Contains(s, "cluster version held") {
		w.uc.held.Add(1)
		w.uc.heldMu.Lock()
		w.uc.heldLines = append(w.uc.heldLines, s)
		w.uc.heldMu.Unlock()
	}
	return w.logWriter.Write(p)
}

func (uc *upCluster) ctlAddrs() []string {
	var out []string
	for _, nd := range uc.nodes {
		out = append(out, nd.ctl)
	}
	return out
}

func (uc *upCluster) nsAddrs() []string {
	var out []string
	for _, nd := range uc.nodes {
		out = append(out, nd.ns)
	}
	return out
}

// metadata asks one node 1005 (nil when it does not answer).
func metadata(addr string, timeout time.Duration) map[string]string {
	return signedMetadata(addr, timeout, nil)
}

// metadata asks one node 1005 signed with uc.sign.
func (uc *upCluster) metadata(addr string, timeout time.Duration) map[string]string {
	return signedMetadata(addr, timeout, uc.sign)
}

// signedMetadata asks one node 1005 signed by sign (nil: unsigned).
func signedMetadata(addr string, timeout time.Duration, sign func(*remoting.Command)) map[string]string {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{Sign: sign})
	if err != nil {
		return nil
	}
	defer c.Close()
	resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.ControllerGetMetadataInfo, nil, nil))
	if err != nil || resp.Code != remoting.Success {
		return nil
	}
	return resp.ExtFields
}

// leader is the node whose 1005 says it leads (nil: none).
func (uc *upCluster) leader() *upNode {
	for _, nd := range uc.nodes {
		if md := uc.metadata(nd.ctl, time.Second); md != nil && md["isLeader"] == "true" {
			return nd
		}
	}
	return nil
}

// order is the upgrade order: the followers, then the leader.
func (uc *upCluster) order(t *testing.T) []*upNode {
	var leader *upNode
	require.Eventually(t, func() bool { leader = uc.leader(); return leader != nil }, waitLimit, 50*time.Millisecond)
	out := slices.DeleteFunc(slices.Clone(uc.nodes), func(nd *upNode) bool { return nd == leader })
	return append(out, leader)
}

// clusterVersions is each answering node's controllerClusterVersion ("1"
// for a node of the old binary, which does not send it).
func (uc *upCluster) clusterVersions() []string {
	var out []string
	for _, nd := range uc.nodes {
		md := uc.metadata(nd.ctl, time.Second)
		switch {
		case md == nil:
			out = append(out, "?")
		case md["controllerClusterVersion"] == "":
			out = append(out, "1")
		default:
			out = append(out, md["controllerClusterVersion"])
		}
	}
	return out
}

// TestRollingUpgradeProcesses is the rolling upgrade from previousRelease
// with real binaries (RMQ_TEST_LONG=1, make test-long): all three nodes,
// then again with one node left on the old binary.
func TestRollingUpgradeProcesses(t *testing.T) {
	if os.Getenv("RMQ_TEST_LONG") != "1" {
		t.Skip("builds " + previousRelease + " and runs two rolling upgrades: RMQ_TEST_LONG=1 (make test-long)")
	}
	oldBin := oldBinary(t)
	newBin := binary(t, "namesrv")
	seeds, _ := faultSeeds(t)
	seed := seeds[0]
	t.Logf("seed=%d (replay with RMQ_SEED=%d)", seed, seed)
	t.Run("all", func(t *testing.T) { runUpgrade(t, oldBin, newBin, seed, false) })
	t.Run("one-left-old", func(t *testing.T) { runUpgrade(t, oldBin, newBin, seed, true) })
}

// runUpgrade upgrades every node (followers first), or with keepOld the
// leader and one follower, leaving the other follower on the old binary;
// then (keepOld) makes sure a new node leads, watches it hold the cluster
// version, and takes the upgraded follower back to the old binary.
func runUpgrade(t *testing.T, oldBin, newBin string, seed int64, keepOld bool) {
	uc := startUpCluster(t, oldBin, newBin)
	order := uc.order(t)
	if keepOld {
		order = []*upNode{order[0], order[2]} // order[1] stays old
	}
	uc.putKVs(t)
	route := startRouteBroker(t, uc.nsAddrs())
	mon := startLeaderMonitor(uc)
	load := startLookups(t, uc.nsAddrs(), route.BrokerName())
	h := newHistory()
	brokers, admin := setupFaultSet(t, uc.ctlAddrs(), h)
	ctx, cancel := context.WithCancel(context.Background())
	wait := startWorkload(ctx, seed, append(slices.Clone(brokers), admin))
	load.await(t, "old binary")
	var lastStart time.Time
	for k, nd := range order {
		load.setPhase("upgrading " + nd.id)
		lastStart = uc.restart(t, nd, true)
		load.await(t, "upgrading "+nd.id)
		if keepOld || k < len(order)-1 {
			require.NotContains(t, uc.clusterVersions(), "2", "cluster version raised with an old node in the group")
		}
	}
	if keepOld {
		uc.holdWithOneOld(t, load)
	} else {
		load.setPhase("cluster version 2")
		require.Eventually(t, func() bool { return slices.Equal(uc.clusterVersions(), []string{"2", "2", "2"}) },
			waitLimit, 100*time.Millisecond, "cluster version not raised: %v", uc.clusterVersions())
		require.True(t, mon.raisedAt().After(lastStart), "raised at %v, before the last node started at %v", mon.raisedAt(), lastStart)
	}
	load.await(t, load.phaseName())
	uc.requireKVs(t) // each binary reads the other's KV store
	cancel()
	wait()
	final := finalRead(t, admin)
	load.stop()
	longest := mon.stop()
	uc.stopAll(t)
	logs := uc.entryTypes(t)
	t.Logf("cluster version entries (type 66) per node: %v; snapshot formats kept: %v", logs, uc.snapshotVersions(t))
	for id, n := range logs { // one, or more if a raise timed out and was written again
		require.Equal(t, !keepOld, n > 0, "%d type 66 entries in %s's log", n, id)
	}
	load.report(t)
	t.Logf("longest time without a Raft leader: %v (bound %v); %d records; controller's own elections %d",
		longest, leaderlessBound, len(h.records()), uc.ownElections.Load())
	require.Zero(t, uc.stops.Load(), "a node stopped applying")
	require.LessOrEqual(t, longest, leaderlessBound, "time without a Controller leader")
	load.requireNoFailures(t)
	requireSafe(t, verify(t, h, append(brokers, admin), final, uc.ownElections.Load()))
}

// restart stops nd with SIGTERM (exit 0) and starts it on the new or the
// old binary, then waits until it serves; it returns the start time.
func (uc *upCluster) restart(t *testing.T, nd *upNode, newBin bool) time.Time {
	require.Equal(t, 0, nd.proc.signal(syscall.SIGTERM), "graceful stop of %s", nd.id)
	start := time.Now()
	uc.start(nd, newBin)
	uc.awaitNode(t, nd)
	return start
}

// holdWithOneOld: with a new node leading (the old leader is restarted on
// its binary until one does), the leader says why it holds the version,
// and over three of its polls nothing is raised. Then the upgraded
// follower goes back to the old binary (a rollback before the raise),
// reading the KV entry the new binary wrote.
func (uc *upCluster) holdWithOneOld(t *testing.T, load *lookups) {
	load.setPhase("one node old")
	for range 3 {
		leader := uc.order(t)[2]
		if leader.newBin {
			break
		}
		t.Logf("the old node %s leads: restarting it on the old binary", leader.id)
		uc.restart(t, leader, false)
	}
	require.Eventually(t, func() bool { return uc.held.Load() > 0 }, waitLimit, 50*time.Millisecond,
		"the new leader never said why it holds the cluster version")
	time.Sleep(3 * 2 * time.Second) // three of the leader's polls: an observation window
	require.Equal(t, []string{"1", "1", "1"}, uc.clusterVersions())
	load.await(t, "one node old")
	order := uc.order(t)
	back := order[0]
	if !back.newBin {
		back = order[1]
	}
	require.True(t, back.newBin)
	resp := kvCall(t, back.ns, remoting.PutKVConfig, map[string]string{"namespace": "UPGRADE",
		"key": back.id + "-new", "value": "written by the new binary"})
	require.Equal(t, remoting.Success, resp.Code, resp.Remark)
	load.setPhase("rollback " + back.id)
	uc.restart(t, back, false)
	load.await(t, "rollback "+back.id)
	resp = kvCall(t, back.ns, remoting.GetKVConfig, map[string]string{"namespace": "UPGRADE", "key": back.id + "-new"})
	require.Equal(t, "written by the new binary", resp.ExtFields["value"], "the old binary reads the new one's KV store")
	require.Equal(t, []string{"1", "1", "1"}, uc.clusterVersions())
}

// awaitNode waits until nd answers 1005 from the binary it runs (the
// new one names its format), knows the leader, and serves the route again
// (the broker re-registered with it, or warm-up forwarding answers).
func (uc *upCluster) awaitNode(t *testing.T, nd *upNode) {
	uc.awaitController(t, nd)
	require.Eventually(t, func() bool { return lookupOn(nd.ns) == nil }, waitLimit, 50*time.Millisecond,
		"%s never served the route", nd.ns)
}

// awaitController waits until nd answers 1005 (uc.sign) from the binary
// it runs (the new one names its format) and knows the leader.
func (uc *upCluster) awaitController(t *testing.T, nd *upNode) {
	want := ""
	if nd.newBin {
		want = "2"
	}
	require.Eventually(t, func() bool {
		md := uc.metadata(nd.ctl, time.Second)
		return md != nil && md["controllerFormatVersion"] == want && md["controllerLeaderId"] != ""
	}, waitLimit, 50*time.Millisecond, "%s (new binary: %t) never named a leader", nd.id, nd.newBin)
}

// stopAll stops every node with SIGTERM: each exits 0 (an old node that
// stopped applying would have exited already).
func (uc *upCluster) stopAll(t *testing.T) {
	for _, nd := range uc.nodes {
		require.Equal(t, 0, nd.proc.signal(syscall.SIGTERM), "graceful stop of %s (new binary: %t)", nd.id, nd.newBin)
	}
}
