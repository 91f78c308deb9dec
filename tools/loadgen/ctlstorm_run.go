//go:build embedded_controller

package main

import (
	"time"

	"github.com/hashicorp/go-hclog"
)

// Counting notes of the report.
const (
	ctlRaftNote = "entries: the highest last_log_index of the running nodes, delta over the phase (every entry type, " +
		"a new leader's no-op included); log writes: StoreLogs calls of raftstore's counting log-store wrapper " +
		"(DiskFaults, injecting nothing), one bbolt commit each, and a bbolt commit is what fsyncs"
	ctlCPUNote = "hb phase: getrusage(RUSAGE_SELF) of the loadgen process, which runs the three nodes (one process, so " +
		"not per node) and the in-process brokers' sending side: with -hb-brokers most brokers beat from a child " +
		"process and the figure is the nodes' own, else it is an upper bound; per beat = CPU / 904s received by " +
		"all nodes; leader estimate = per-beat CPU x the beats one node receives a second (every broker beats to every node); " +
		"by node label: a CPU profile of the window, each node's goroutines labelled ctlnode=<id> (unlabelled: the runtime's " +
		"own work such as GC, and this process's brokers and probe); the leader's share = process CPU x its part of the labelled samples"
)

// runCtlStorm starts the group and the fleet, runs the selected phases
// (ops, hb, storm, in that order) and returns the report; on an error
// after the setup the partial report comes with it. The nodes and brokers
// log to ctlLog.
func runCtlStorm(co ctlOptions, seed int64, log, ctlLog hclog.Logger) (*ctlResult, error) {
	res := &ctlResult{Sets: co.sets, BrokersPerSet: co.brokers, HBIntervalMS: ms(co.hbInterval),
		HBTimeoutMS: ms(co.hbTimeout), ScanMS: ms(co.scan), Raft: ctlRaftNote, CPU: ctlCPUNote}
	g, err := startCtlGroup(co, ctlLog)
	if err != nil {
		return nil, err
	}
	defer g.close()
	log.Info("ctlstorm: setting up the fleet", "sets", co.sets, "brokers", co.brokers)
	t0 := time.Now()
	sets, err := newFleet(g.addrs(), "ctl-set", co, ctlLog)
	if err != nil {
		return nil, err
	}
	defer closeFleet(sets)
	res.SetupS = time.Since(t0).Seconds()
	time.Sleep(co.hbInterval) // every broker has beaten on its own schedule
	probs := &problems{}
	if co.wants("ops") {
		log.Info("ctlstorm: ops phase", "clients", co.opsClients, "duration", co.opsTime)
		res.Ops = runOps(g, co, sets, probs)
	}
	if err == nil && co.wants("hb") {
		log.Info("ctlstorm: heartbeat load phase", "brokers", co.sets*co.brokers, "window", co.hbWindow)
		res.HB, err = runHB(g, co, sets, seed, ctlLog)
	}
	if err == nil && co.wants("storm") {
		log.Info("ctlstorm: storm", "mode", co.mode, "fail", co.fail, "kill_leader", co.killLeader)
		res.Storm, err = runStorm(g, co, sets, seed, probs)
	}
	res.Nodes = g.ends()
	res.Problems, res.Correct = probs.items, probs.n == 0
	return res, err
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
