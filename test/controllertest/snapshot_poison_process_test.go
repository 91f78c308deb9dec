//go:build embedded_controller

package controllertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// TestAttackPoisonedSnapshotProcessesSurviveKill9 is the poisoned-snapshot
// reproduction on three cmd/controller processes at the default snapshot
// threshold (8,192 entries, so RMQ_TEST_LONG=1 only): the poison 1013s,
// 8,500 writes, a snapshot on every node, SIGKILL of all three, restart:
// every process stays up and serves the state. Then the leader is killed
// and restarted until each node has led and read the state back. (The
// wiped-node half is TestAttackPoisonedSnapshotGroupRestarts: with the
// default 10,240 trailing entries a wiped node here would replay the log.)
func TestAttackPoisonedSnapshotProcessesSurviveKill9(t *testing.T) {
	if os.Getenv("RMQ_TEST_LONG") != "1" {
		t.Skip("8,500 writes and raft's 30-60 s snapshot check: RMQ_TEST_LONG=1")
	}
	pc := startProcCluster(t)
	w := &procWriter{t: t, addrs: pc.addrs}
	for _, req := range poisonRequests {
		code, remark := w.applyID(req["clusterName"], req["brokerName"], 1)
		t.Logf("poison 1013 brokerName=%.20q (%d bytes): code %d %s", req["brokerName"], len(req["brokerName"]), code, remark)
	}
	want := map[string]string{"broker-a": "3"}
	for id := int64(1); id <= 2; id++ {
		code, remark := w.applyID("C", "broker-a", id)
		require.Equal(t, remoting.Success, code, remark)
	}
	// 8,500 writes as 4,250 sets of two ids each: within the default
	// controllerMaxBrokerSets (8,192).
	for i := range 8500 {
		name, id := fmt.Sprintf("w-%d", i/2), int64(1+i%2)
		code, remark := w.applyID("C", name, id)
		require.Equal(t, remoting.Success, code, "%s id %d: %s", name, id, remark)
		if i%100 == 1 {
			want[name] = "3"
		}
	}
	require.Eventually(t, func() bool { return pc.snapshotted() }, 4*time.Minute, time.Second,
		"no snapshot on every node")
	for i := range pc.procs {
		require.Equal(t, -1, pc.proc(i).signal(syscall.SIGKILL))
	}
	for i := range pc.procs {
		pc.start(i)
	}
	served := map[int]bool{}
	for round := 0; len(served) < len(pc.addrs); round++ {
		require.Less(t, round, 12, "nodes that served: %v", served)
		leader := awaitLeader(t, pc.addrs...)
		pc.requireServes(leader, want)
		served[leader] = true
		require.Equal(t, -1, pc.proc(leader).signal(syscall.SIGKILL))
		pc.start(leader)
	}
}

// snapshotted reports whether every node has a completed snapshot on disk.
func (pc *procCluster) snapshotted() bool {
	for _, path := range pc.paths {
		dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "store", "snapshots", "*"))
		done := false
		for _, d := range dirs {
			done = done || !strings.HasSuffix(d, ".tmp")
		}
		if !done {
			return false
		}
	}
	return true
}

// requireServes reads want from node i (the ready leader); every process
// must still be running.
func (pc *procCluster) requireServes(i int, want map[string]string) {
	pc.t.Helper()
	read := idReader(pc.t, pc.addrs[i])
	for name, id := range want {
		got, _, err := read(name)
		require.NoError(pc.t, err, "n%d reads %s", i, name)
		require.Equal(pc.t, id, got, "n%d: %s", i, name)
	}
	for j := range pc.procs {
		select {
		case <-pc.proc(j).done:
			pc.t.Fatalf("n%d exited: %v", j, pc.proc(j).cmd.ProcessState)
		default:
		}
	}
}

// procWriter sends 1013s to the ready leader of addrs, following it.
type procWriter struct {
	t      *testing.T
	addrs  []string
	leader int
	c      *remoting.Client
}

func (w *procWriter) applyID(cluster, name string, id int64) (int32, string) {
	deadline := time.Now().Add(4 * waitLimit)
	for time.Now().Before(deadline) {
		if w.c == nil {
			w.leader = awaitLeader(w.t, w.addrs...)
			w.c = dialController(w.t, w.addrs[w.leader])
		}
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		resp, err := w.c.Invoke(ctx, remoting.NewRequest(remoting.ControllerApplyBrokerID, map[string]string{
			"clusterName": cluster, "brokerName": name, "appliedBrokerId": strconv.FormatInt(id, 10),
			"registerCheckCode": "127.0.0.1:" + strconv.FormatInt(10910+id, 10) + ";1"}, nil))
		cancel()
		if err == nil && resp.Code != codeNotLeader && !strings.Contains(resp.Remark, "not the raft leader") {
			return resp.Code, resp.Remark
		}
		w.c = nil
		time.Sleep(20 * time.Millisecond)
	}
	return -1, "no leader answered before the deadline"
}
