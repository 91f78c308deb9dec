//go:build embedded_controller

package controllertest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// procCluster is three cmd/controller processes on loopback that the
// nemesis stops (SIGSTOP/SIGCONT) and kills (SIGKILL, then a restart from
// the same config and store).
type procCluster struct {
	t     *testing.T
	bin   string
	addrs []string // broker-facing addresses
	raft  []string // Raft addresses
	paths []string // controller.properties
	mu    sync.Mutex
	procs []*process
	// ownElections counts "controller-triggered election finished" lines
	// of every process's log (T1/T2 elections, not in the history).
	ownElections atomic.Int64
}

func startProcCluster(t *testing.T) *procCluster {
	t.Helper()
	pc := &procCluster{t: t, bin: binary(t, "controller")}
	var peers, raftPeers []string
	for i := range 3 {
		pc.addrs, pc.raft = append(pc.addrs, freeAddr(t)), append(pc.raft, freeAddr(t))
		peers = append(peers, fmt.Sprintf("n%d-%s", i, pc.addrs[i]))
		raftPeers = append(raftPeers, fmt.Sprintf("n%d-%s", i, pc.raft[i]))
	}
	dir := t.TempDir()
	for i := range 3 {
		id := fmt.Sprintf("n%d", i)
		pc.paths = append(pc.paths, writeProps(t, filepath.Join(dir, id), id, strings.Join(peers, ";"),
			strings.Join(raftPeers, ";"), append([]string{"bindAddress=127.0.0.1"}, fastProps...)))
		pc.procs = append(pc.procs, nil)
		pc.start(i)
	}
	return pc
}

// start runs node i's process.
func (pc *procCluster) start(i int) {
	w := &countingWriter{logWriter: logWriter{t: pc.t, prefix: fmt.Sprintf("n%d", i)}, n: &pc.ownElections}
	pc.t.Cleanup(w.stop)
	p := startProcessTo(pc.t, fmt.Sprintf("n%d", i), w, pc.bin, "-c", pc.paths[i])
	pc.mu.Lock()
	pc.procs[i] = p
	pc.mu.Unlock()
}

func (pc *procCluster) proc(i int) *process {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.procs[i]
}

// countingWriter is a logWriter that counts the controller's own elections.
type countingWriter struct {
	logWriter
	n *atomic.Int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "controller-triggered election finished") {
		w.n.Add(1)
	}
	return w.logWriter.Write(p)
}

// leader is the index of the node a 1005 names leader (-1: none).
func (pc *procCluster) leader(c *faultClient) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	addr, _ := c.b.FindLeader(ctx)
	return slices.Index(pc.addrs, addr)
}

// procStep is one process nemesis step on the leader (or its followers).
type procStep struct {
	kind string // stop-leader, stop-followers, stop-one, kill-leader
	d    time.Duration
	gap  time.Duration
	node int // stop-one
}

func procPlan(rng *rand.Rand, total time.Duration) []procStep {
	var plan []procStep
	for at := time.Duration(0); at < total; {
		s := procStep{gap: ms(rng, 200, 800), node: rng.IntN(3)}
		switch p := rng.IntN(100); {
		case p < 30:
			s.kind, s.d = "stop-leader", ms(rng, 500, 3000)
		case p < 55:
			s.kind, s.d = "stop-followers", ms(rng, 5200, 6500)
		case p < 75:
			s.kind, s.d = "stop-one", ms(rng, 500, 3000)
		default:
			s.kind, s.d = "kill-leader", ms(rng, 300, 2000)
		}
		plan = append(plan, s)
		at += s.gap + s.d
	}
	return plan
}

// inject starts s (leader as probed by probe) and returns what ends it.
func (pc *procCluster) inject(s procStep, probe *faultClient) func() {
	leader := pc.leader(probe)
	var targets []int
	switch {
	case s.kind == "stop-one":
		targets = []int{s.node}
	case leader < 0:
		return func() {}
	case s.kind == "stop-followers":
		targets = slices.DeleteFunc([]int{0, 1, 2}, func(i int) bool { return i == leader })
	default:
		targets = []int{leader}
	}
	if s.kind == "kill-leader" {
		pc.proc(leader).signal(syscall.SIGKILL)
		return func() { pc.start(leader) }
	}
	for _, i := range targets {
		_ = pc.proc(i).cmd.Process.Signal(syscall.SIGSTOP)
	}
	return func() {
		for _, i := range targets {
			_ = pc.proc(i).cmd.Process.Signal(syscall.SIGCONT)
		}
	}
}

// TestFaultProcesses is TestFaultRandomized's workload and checks against
// three real controller processes, stopped and killed with signals. One
// seed by default; RMQ_TEST_LONG=1 runs procLongSeeds; RMQ_SEED=N replays.
func TestFaultProcesses(t *testing.T) {
	seeds, trial := faultSeeds(t)
	if len(seeds) > procLongSeeds {
		seeds = seeds[:procLongSeeds]
	} else if len(seeds) > 1 {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Logf("seed=%d (replay with RMQ_SEED=%d)", seed, seed)
			runProcTrial(t, seed, trial)
		})
	}
}

// procLongSeeds is how many seeds long mode runs on processes.
const procLongSeeds = 20

func runProcTrial(t *testing.T, seed int64, d time.Duration) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	plan := procPlan(rng, d)
	pc := startProcCluster(t)
	h := newHistory()
	brokers, admin := setupFaultSet(t, pc.addrs, h)
	probe := newFaultClient(t, newHistory(), -2, pc.addrs)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	wait := startWorkload(ctx, seed, append(slices.Clone(brokers), admin))
	for _, s := range plan {
		if !sleepCtx(ctx, s.gap) {
			break
		}
		t.Logf("nemesis: %s for %v", s.kind, s.d)
		undo := pc.inject(s, probe)
		sleepCtx(ctx, s.d)
		undo()
	}
	wait()
	final := finalRead(t, admin)
	for _, b := range brokers {
		b.replicaInfo()
	}
	own := pc.ownElections.Load()
	t.Logf("seed=%d: %d records, final state %s, controller's own elections %d", seed, len(h.records()), final.out, own)
	requireSafe(t, verify(t, h, append(brokers, admin), final, own))
}
