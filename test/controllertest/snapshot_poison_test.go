//go:build embedded_controller

package controllertest

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/raftstore"
	"github.com/rmqgo/nameserver/remoting"
)

// poisonRequests are the 1013s that binaries writing snapshot format 1 answered 0
// and stored: names a snapshot could not carry.
var poisonRequests = []map[string]string{
	{"clusterName": "C", "brokerName": ""},
	{"clusterName": "", "brokerName": "p-empty-cluster"},
	{"clusterName": "C", "brokerName": "p\xff"},
	{"clusterName": "C", "brokerName": "p\xfe"},
	{"clusterName": "C", "brokerName": "p-nul\x00"},
	{"clusterName": "C", "brokerName": strings.Repeat("p", 64<<10)},
}

// snapshotTune is the Raft snapshot schedule of the test: a low threshold
// in make test, the default 8,192 under RMQ_TEST_LONG=1; few trailing logs,
// so a wiped node can only catch up by InstallSnapshot.
func snapshotTune() (tune func(*raftstore.Config), writes int) {
	threshold, interval, writes := uint64(64), 50*time.Millisecond, 300
	if os.Getenv("RMQ_TEST_LONG") == "1" {
		threshold, interval, writes = raftstore.DefaultSnapshotThreshold, time.Second, 8500
	}
	return func(rc *raftstore.Config) {
		rc.SnapshotThreshold, rc.SnapshotInterval, rc.TrailingLogs = threshold, interval, 16
	}, writes
}

// TestAttackPoisonedSnapshotGroupRestarts is the poisoned snapshot end to
// end: three nodes take the poison requests (refused or stored, either
// way), then enough writes for an automatic snapshot that holds them; all
// three are killed and restarted: a leader is elected and every node
// serves the state. Then one node's data dir is wiped: it catches up by
// InstallSnapshot and serves the same state.
func TestAttackPoisonedSnapshotGroupRestarts(t *testing.T) {
	logger, lines := testlog.Capture(t, "snap", hclog.Info)
	tune, writes := snapshotTune()
	// Long mode writes 8,500 sets, past the default controllerMaxBrokerSets.
	fc := startFaultClusterWith(t, false, logger, tune, "controllerMaxBrokerSets=100000")
	w := fc.newWriter()
	defer w.close()
	want := map[string]string{} // broker set -> what idReader reads (the id held, or the next id)
	var stored []string         // poison names answered 0 (stored as sent when valid UTF-8)
	for _, req := range poisonRequests {
		resp := w.applyID(req["clusterName"], req["brokerName"], 1)
		if resp.Code == remoting.Success && utf8.ValidString(req["brokerName"]) {
			stored = append(stored, req["brokerName"])
		}
		t.Logf("poison 1013 clusterName=%q brokerName=%.20q (%d bytes): code %d %s", req["clusterName"],
			req["brokerName"], len(req["brokerName"]), resp.Code, resp.Remark)
	}
	poisonIndex := raftIndex(fc.leader(), "last_log_index")
	for id := int64(1); id <= 2; id++ {
		require.Equal(t, remoting.Success, w.applyID("C", "broker-a", id).Code)
	}
	want["broker-a"] = "3"
	fc.writeSets(writes, want)
	fc.awaitSnapshots(poisonIndex)
	states := fc.awaitSameState()
	for _, name := range stored {
		require.Contains(t, states, name, "a poison request answered 0 is in the state")
	}

	for _, nd := range fc.nodes {
		fc.kill(nd)
	}
	for _, nd := range fc.nodes {
		fc.restart(nd)
	}
	fc.leader()
	require.Equal(t, states, fc.awaitSameState(), "every node restored the state it had")
	fc.requireEachServes(want)

	wiped := fc.follower()
	fc.kill(wiped)
	require.NoError(t, os.RemoveAll(filepath.Join(filepath.Dir(wiped.path), "store")))
	fc.restart(wiped)
	require.Equal(t, states, fc.awaitSameState(), "the wiped node caught up")
	require.Eventually(t, func() bool { return installs(lines, wiped.id) > 0 }, waitLimit, 20*time.Millisecond,
		"%s installed no snapshot", wiped.id)
	fc.requireEachServes(want)
	t.Logf("poison entries up to index %d; %d writes; %s installed %d snapshot(s)", poisonIndex, writes,
		wiped.id, installs(lines, wiped.id))
}

// leaderWriter sends 1013s to whichever node is the ready leader.
type leaderWriter struct {
	fc    *faultCluster
	conns map[string]*remoting.Client
}

func (fc *faultCluster) newWriter() *leaderWriter {
	return &leaderWriter{fc: fc, conns: map[string]*remoting.Client{}}
}

// applyID sends 1013 for id to the ready leader until a leader answers
// with something else than "not the leader" (leadership moves on a loaded
// machine); nil once the deadline passed.
func (w *leaderWriter) applyID(cluster, name string, id int64) *remoting.Command {
	deadline := time.Now().Add(4 * waitLimit)
	for time.Now().Before(deadline) {
		if resp := w.tryApplyID(cluster, name, id); resp != nil &&
			resp.Code != codeNotLeader && !strings.Contains(resp.Remark, "not the raft leader") {
			return resp
		}
		time.Sleep(20 * time.Millisecond)
	}
	return &remoting.Command{Code: -1, Remark: "no leader answered before the deadline"}
}

// codeNotLeader is CONTROLLER_NOT_LEADER.
const codeNotLeader = 2007

func (w *leaderWriter) tryApplyID(cluster, name string, id int64) *remoting.Command {
	var addr string
	for _, nd := range w.fc.running() {
		if nd.ctl.IsReadyLeader() {
			addr = nd.remoting
		}
	}
	if addr == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c := w.conns[addr]
	if c == nil {
		var err error
		if c, err = remoting.Dial(ctx, addr, remoting.ClientOptions{}); err != nil {
			return nil
		}
		w.conns[addr] = c
	}
	resp, err := c.Invoke(ctx, remoting.NewRequest(remoting.ControllerApplyBrokerID, map[string]string{
		"clusterName": cluster, "brokerName": name, "appliedBrokerId": strconv.FormatInt(id, 10),
		"registerCheckCode": "127.0.0.1:" + strconv.FormatInt(10910+id, 10) + ";1"}, nil))
	if err != nil {
		_ = c.Close()
		delete(w.conns, addr)
		return nil
	}
	return resp
}

func (w *leaderWriter) close() {
	for _, c := range w.conns {
		_ = c.Close()
	}
}

// writeSets registers id 1 of n fresh broker sets with four writers; every
// tenth set is remembered in want.
func (fc *faultCluster) writeSets(n int, want map[string]string) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i0 := range 4 {
		w := fc.newWriter()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.close()
			for i := i0; i < n; i += 4 {
				name := fmt.Sprintf("w-%d", i)
				if resp := w.applyID("C", name, 1); resp.Code != remoting.Success {
					fc.t.Errorf("write %s: code %d %s", name, resp.Code, resp.Remark)
					return
				}
				if i%10 == 0 {
					mu.Lock()
					want[name] = "1"
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
}

func raftIndex(nd *node, key string) uint64 {
	v, _ := strconv.ParseUint(nd.ctl.RaftStats()[key], 10, 64)
	return v
}

// awaitSnapshots waits until every node has taken a snapshot at or past
// index.
func (fc *faultCluster) awaitSnapshots(index uint64) {
	fc.t.Helper()
	require.Eventually(fc.t, func() bool {
		for _, nd := range fc.running() {
			if raftIndex(nd, "last_snapshot_index") < index {
				return false
			}
		}
		return true
	}, 4*waitLimit, 20*time.Millisecond, "no snapshot past index %d on every node", index)
}

// awaitSameState waits until the three nodes hold the same broker sets
// (with their master epochs) and returns them.
func (fc *faultCluster) awaitSameState() map[string]int32 {
	fc.t.Helper()
	var states map[string]int32
	require.Eventually(fc.t, func() bool {
		nodes := fc.running()
		if len(nodes) != len(fc.nodes) {
			return false
		}
		states = nodes[0].ctl.MasterEpochs()
		for _, nd := range nodes[1:] {
			if !maps.Equal(states, nd.ctl.MasterEpochs()) {
				return false
			}
		}
		return true
	}, 4*waitLimit, 20*time.Millisecond, "the nodes hold different states")
	return states
}

// requireEachServes makes each node leader in turn and reads want from it.
func (fc *faultCluster) requireEachServes(want map[string]string) {
	fc.t.Helper()
	for _, target := range fc.nodes {
		fc.leadTo(target)
		read := idReader(fc.t.(*testing.T), target.remoting)
		for name, next := range want {
			got, _, err := read(name)
			require.NoError(fc.t, err, "%s reads %s", target.id, name)
			require.Equal(fc.t, next, got, "%s: next id of %s", target.id, name)
		}
	}
}

// leadTo transfers leadership to target until it is the ready leader.
func (fc *faultCluster) leadTo(target *node) {
	fc.t.Helper()
	deadline := time.Now().Add(4 * waitLimit)
	for leader := fc.leader(); leader != target; leader = fc.leader() {
		require.True(fc.t, time.Now().Before(deadline), "%s never led", target.id)
		_ = leader.ctl.Node().Raft().LeadershipTransferToServer(raft.ServerID(target.id),
			raft.ServerAddress(target.raft)).Error()
		time.Sleep(50 * time.Millisecond)
	}
}

// installs counts node id's "Installed remote snapshot" log lines.
func installs(lines *testlog.Lines, id string) int {
	n := 0
	for _, l := range strings.Split(lines.String(), "\n") {
		if strings.Contains(l, "Installed remote snapshot") && strings.Contains(l, "."+id+".") {
			n++
		}
	}
	return n
}
