package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
)

// ctlOptions are the flags of the ctlstorm workload (the Controller at
// fleet scale): three Controller nodes in this process on
// loopback and a fleet of controller-mode brokers (test/ctlbroker), each
// listening on its own port for 1008.
type ctlOptions struct {
	sets       int
	brokers    int
	fail       float64
	mode       string
	killLeader bool
	hbInterval time.Duration
	hbTimeout  time.Duration
	scan       time.Duration
	phases     string
	opsClients int
	opsTime    time.Duration
	hbWindow   time.Duration
	noticeWait time.Duration
	logLevel   string
	// electWindow is -ctl-election-window (negative: the default).
	electWindow time.Duration
	hbBrokers   int
	hbProfile   string
	profile     string // prefix of the ops and storm phases' CPU profiles
	// hidden child mode: a fleet of hbBrokers brokers beating to ctlAddrs
	serveFleet bool
	ctlAddrs   string
}

// Bounds of the ctlstorm flags and phases.
const (
	ctlMaxSets      = 4000
	ctlMaxBrokers   = 5
	ctlSetupWorkers = 32
	ctlSetupTimeout = 5 * time.Minute
	ctlSetupTries   = 5
	ctlMaxProblems  = 20
	ctlSettleWait   = 30 * time.Second       // after -notice-wait: a 1008 or 1004 naming the new master
	ctlSettlePoll   = 250 * time.Millisecond // the 1004 period meanwhile
	ctlLateNotice   = 2 * time.Second        // for the 1008 once 1004 names the new master
)

// ctlPhases are the phases -ctl-phases may name, in run order.
var ctlPhases = []string{"ops", "hb", "storm"}

func (c *ctlOptions) register(fs *flag.FlagSet) {
	fs.IntVar(&c.sets, "sets", 1000, "ctlstorm: broker sets")
	fs.IntVar(&c.brokers, "brokers", 2, "ctlstorm: brokers per set (all in the sync-state set)")
	fs.Float64Var(&c.fail, "fail", 0.333, "ctlstorm: fraction of sets whose master fails")
	fs.StringVar(&c.mode, "mode", "close", "ctlstorm: close (the masters' connections close at once) | silence (the masters stop heartbeating, connections stay open)")
	fs.BoolVar(&c.killLeader, "kill-leader", false, "ctlstorm: stop the Raft leader once the first new master is notified (elections in flight)")
	fs.DurationVar(&c.hbInterval, "hb-interval", time.Second, "ctlstorm: each broker's heartbeat period to every node")
	fs.DurationVar(&c.hbTimeout, "hb-timeout", 3*time.Second, "ctlstorm: heartbeatTimeoutMills the brokers send")
	fs.DurationVar(&c.scan, "scan", 300*time.Millisecond, "ctlstorm: scanNotActiveBrokerInterval of the nodes")
	fs.StringVar(&c.phases, "ctl-phases", "storm", "ctlstorm: comma list of ops (alter throughput), hb (heartbeat load), storm")
	fs.IntVar(&c.opsClients, "ops", 64, "ctlstorm ops phase: clients sending alterSyncStateSet closed-loop over the sets")
	fs.DurationVar(&c.opsTime, "ops-duration", 5*time.Second, "ctlstorm ops phase: measured time")
	fs.DurationVar(&c.hbWindow, "hb-window", 5*time.Second, "ctlstorm hb phase: measured time")
	fs.IntVar(&c.hbBrokers, "hb-brokers", 0, "ctlstorm hb phase: 0 = measure the fleet of -sets in this process; N = add N brokers (N/-brokers sets) beating from a child process, so that CPU is the nodes' alone")
	fs.StringVar(&c.hbProfile, "hb-profile", "", "ctlstorm hb phase: write the window's CPU profile (samples labelled ctlnode=<node id>) to this file")
	fs.StringVar(&c.profile, "ctl-profile", "", "ctlstorm ops and storm phases: write each phase's CPU profile to <prefix>.ops.pprof and <prefix>.storm.pprof")
	fs.BoolVar(&c.serveFleet, "serve-fleet", false, "internal: run -hb-brokers brokers beating to -ctl-addrs until SIGTERM")
	fs.StringVar(&c.ctlAddrs, "ctl-addrs", "", "internal: controller addresses of -serve-fleet")
	fs.DurationVar(&c.electWindow, "ctl-election-window", -1, "ctlstorm: group-commit window of the nodes' triggered elections (-1: the Controller's default, 0: none)")
	fs.StringVar(&c.logLevel, "ctl-log-level", "error", "ctlstorm: log level of the nodes and brokers (to stderr; -v: debug)")
	fs.DurationVar(&c.noticeWait, "notice-wait", 15*time.Second, "ctlstorm storm: wait for a new master's 1008 this long after the failure plus the heartbeat timeout, then ask 1004 (a leader kill can lose a 1008)")
}

func (c ctlOptions) validate() error {
	if c.sets < 1 || c.sets > ctlMaxSets || c.brokers < 2 || c.brokers > ctlMaxBrokers {
		return fmt.Errorf("need 1 <= -sets <= %d and 2 <= -brokers <= %d", ctlMaxSets, ctlMaxBrokers)
	}
	if c.fail < 0 || c.fail > 1 || (c.mode != "close" && c.mode != "silence") {
		return errors.New("need 0 <= -fail <= 1 and -mode close or silence")
	}
	if c.hbInterval < 10*time.Millisecond || c.hbInterval > time.Minute || c.hbTimeout < c.hbInterval || c.hbTimeout > time.Minute {
		return errors.New("need 10ms <= -hb-interval <= -hb-timeout <= 1m")
	}
	if c.scan < 10*time.Millisecond || c.scan > time.Minute || c.opsClients < 1 || c.opsClients > 1024 {
		return errors.New("need 10ms <= -scan <= 1m and 1 <= -ops <= 1024")
	}
	if c.opsTime <= 0 || c.opsTime > 10*time.Minute || c.hbWindow <= 0 || c.hbWindow > 10*time.Minute ||
		c.noticeWait <= 0 || c.noticeWait > 10*time.Minute {
		return errors.New("need 0 < -ops-duration, -hb-window, -notice-wait <= 10m")
	}
	if hclog.LevelFromString(c.logLevel) == hclog.NoLevel {
		return fmt.Errorf("-ctl-log-level: unknown level %q", c.logLevel)
	}
	if c.hbBrokers < 0 || c.hbBrokers > ctlMaxSets*c.brokers {
		return fmt.Errorf("need 0 <= -hb-brokers <= %d", ctlMaxSets*c.brokers)
	}
	for _, p := range strings.Split(c.phases, ",") {
		if !slices.Contains(ctlPhases, p) {
			return fmt.Errorf("-ctl-phases: unknown phase %q (want ops, hb, storm)", p)
		}
	}
	return nil
}

// wants reports whether phase p was selected.
func (c ctlOptions) wants(p string) bool { return slices.Contains(strings.Split(c.phases, ","), p) }

// ctlResult is the report of the ctlstorm workload.
type ctlResult struct {
	Sets          int          `json:"sets"`
	BrokersPerSet int          `json:"brokers_per_set"`
	HBIntervalMS  float64      `json:"heartbeat_interval_ms"`
	HBTimeoutMS   float64      `json:"heartbeat_timeout_ms"`
	ScanMS        float64      `json:"scan_interval_ms"`
	SetupS        float64      `json:"setup_s"`
	Ops           *ctlOps      `json:"ops,omitempty"`
	HB            *ctlHB       `json:"heartbeat_load,omitempty"`
	Storm         *ctlStorm    `json:"storm,omitempty"`
	Raft          string       `json:"raft_counting"`
	CPU           string       `json:"cpu_counting"`
	Correct       bool         `json:"correct"`
	Problems      []string     `json:"problems,omitempty"`
	Nodes         []ctlNodeEnd `json:"nodes"`
}

// ctlNodeEnd is one node at the end of the run.
type ctlNodeEnd struct {
	ID        string `json:"id"`
	Running   bool   `json:"running"`
	LogWrites int    `json:"log_writes"`
	LastIndex uint64 `json:"last_log_index"`
}

// ctlRaftUse is what a phase cost the Raft log.
type ctlRaftUse struct {
	Entries      uint64 `json:"entries"`             // last index delta (all entry types)
	LogWrites    int    `json:"log_writes"`          // the leader's StoreLogs calls (one bbolt commit, i.e. fsync, each)
	LogWritesAll int    `json:"log_writes_all"`      // the same summed over the three nodes
	Terms        uint64 `json:"raft_terms"`          // term delta: Raft elections during the phase (a loaded machine's leader flaps)
	PerEvent     string `json:"per_event,omitempty"` // entries and writes per operation or failover
}

// ctlStorm is the failover storm.
type ctlStorm struct {
	Mode          string     `json:"mode"`
	FailedSets    int        `json:"failed_sets"`
	KillLeader    bool       `json:"kill_leader"`
	LeaderKilled  string     `json:"leader_killed,omitempty"`
	KilledAfterMS float64    `json:"leader_killed_after_ms,omitempty"`
	NewLeader     string     `json:"new_leader,omitempty"`
	Notified      int        `json:"notified"`                   // new masters told by 1008
	LearnedBy1004 int        `json:"learned_by_1004"`            // new masters whose 1008 was lost (leader kill)
	P50MS         float64    `json:"p50_ms"`                     // failure → the new master's 1008
	P99MS         float64    `json:"p99_ms"`                     //
	LastMS        float64    `json:"last_ms"`                    //
	AfterTimeout  *ctlAfterT `json:"after_hb_timeout,omitempty"` // silence: the same minus the heartbeat timeout
	Raft          ctlRaftUse `json:"raft"`
}

// ctlAfterT is the silence storm measured from the heartbeat timeout.
type ctlAfterT struct {
	P50MS  float64 `json:"p50_ms"`
	P99MS  float64 `json:"p99_ms"`
	LastMS float64 `json:"last_ms"`
}

// ctlOps is the alter throughput phase.
type ctlOps struct {
	Clients int        `json:"clients"`
	Errors  int        `json:"errors"`
	Latency latency    `json:"latency"`
	Raft    ctlRaftUse `json:"raft"`
}

// ctlHB is the heartbeat load phase.
type ctlHB struct {
	Brokers         int     `json:"brokers"`
	InChild         bool    `json:"brokers_in_child_process"` // then process CPU is the nodes' (and the probe's) alone
	ChildCPUPct     float64 `json:"child_cpu_pct_of_core,omitempty"`
	BeatsPerSNode   float64 `json:"beats_per_s_per_node"`
	ProcessCPUPct   float64 `json:"process_cpu_pct_of_core"`
	CPUPerBeatUS    float64 `json:"process_cpu_per_beat_us"` // per 904 received by any node
	LeaderCPUPctEst float64 `json:"leader_cpu_pct_est"`      // CPU per beat x beats/s one node receives
	Latency904      latency `json:"latency_904_leader"`

	// From a CPU profile of the window split by each node's pprof label:
	// the leader's own goroutines, the followers', and the rest (runtime
	// work such as background GC, and this process's brokers and probe).
	LeaderCPUPct    float64            `json:"leader_cpu_pct_of_core,omitempty"`
	NodeCPUPct      map[string]float64 `json:"node_cpu_pct_of_core,omitempty"`
	UnlabeledCPUPct float64            `json:"unlabeled_cpu_pct_of_core,omitempty"`
	LeaderPerBeatUS float64            `json:"leader_cpu_per_beat_us,omitempty"` // the leader's labeled CPU per 904 it received
	// the process CPU (getrusage) times the leader's part of the labelled
	// samples: the runtime's work shared in proportion
	LeaderSharePct float64 `json:"leader_share_of_process_cpu_pct,omitempty"`
}

// runCtlStormWorkload runs the ctlstorm workload and prints or writes its report.
func runCtlStormWorkload(o options, stdout, stderr io.Writer, log hclog.Logger) error {
	ctlLog := log.Named("ctlstorm") // the nodes and brokers: errors only, all with -v
	if !o.verbose {
		ctlLog = hclog.New(&hclog.LoggerOptions{Name: "ctlstorm", Level: hclog.LevelFromString(o.ctl.logLevel), Output: stderr})
	}
	res, err := runCtlStorm(o.ctl, o.seed, log, ctlLog)
	if res == nil {
		return err
	}
	rep := struct {
		Machine  machine    `json:"machine"`
		Workload string     `json:"workload"`
		CtlStorm *ctlResult `json:"ctlstorm"`
	}{describeMachine(), "ctlstorm", res}
	if werr := writeJSONFile(o.outFile, rep); werr != nil {
		return errors.Join(err, werr)
	}
	if o.jsonOut {
		return errors.Join(err, writeJSON(stdout, rep))
	}
	res.print(stdout)
	if err == nil && !res.Correct {
		err = fmt.Errorf("ctlstorm: %d correctness problems, first: %s", len(res.Problems), res.Problems[0])
	}
	return err
}

// print writes the human-readable report.
func (r *ctlResult) print(w io.Writer) {
	fmt.Fprintf(w, "ctlstorm: %d sets x %d brokers, heartbeat %v (timeout %v, scan %v), setup %.1f s\n",
		r.Sets, r.BrokersPerSet, time.Duration(r.HBIntervalMS*1e6), time.Duration(r.HBTimeoutMS*1e6),
		time.Duration(r.ScanMS*1e6), r.SetupS)
	if o := r.Ops; o != nil {
		fmt.Fprintf(w, "ops: %d clients: %.0f alter/s, p50 %.2f ms, p99 %.2f ms, errors %d; raft %d entries, %d leader log writes\n",
			o.Clients, o.Latency.QPS, o.Latency.P50US/1e3, o.Latency.P99US/1e3, o.Errors, o.Raft.Entries, o.Raft.LogWrites)
	}
	if h := r.HB; h != nil {
		fmt.Fprintf(w, "heartbeat load: %d brokers, %.0f beats/s per node: process CPU %.1f%% of a core, %.1f us per beat, leader est. %.1f%%; 904 p50 %.2f ms p99 %.2f ms\n",
			h.Brokers, h.BeatsPerSNode, h.ProcessCPUPct, h.CPUPerBeatUS, h.LeaderCPUPctEst, h.Latency904.P50US/1e3, h.Latency904.P99US/1e3)
		if h.NodeCPUPct != nil {
			fmt.Fprintf(w, "  by node label: leader %.1f%% of a core (%.1f us per 904 it received), nodes %s, unlabelled %.1f%%; "+
				"the leader's share of the process CPU %.1f%%\n", h.LeaderCPUPct, h.LeaderPerBeatUS, fmtPcts(h.NodeCPUPct),
				h.UnlabeledCPUPct, h.LeaderSharePct)
		}
	}
	if s := r.Storm; s != nil {
		fmt.Fprintf(w, "storm (%s, %d failed sets, leader kill %v): failure -> 1008 p50 %.0f ms, p99 %.0f ms, last %.0f ms; notified %d, by 1004 %d; raft %d entries, %d leader log writes (%d all nodes), %d new terms\n",
			s.Mode, s.FailedSets, s.KillLeader, s.P50MS, s.P99MS, s.LastMS, s.Notified, s.LearnedBy1004, s.Raft.Entries, s.Raft.LogWrites, s.Raft.LogWritesAll, s.Raft.Terms)
		if a := s.AfterTimeout; a != nil {
			fmt.Fprintf(w, "  after the heartbeat timeout: p50 %.0f ms, p99 %.0f ms, last %.0f ms\n", a.P50MS, a.P99MS, a.LastMS)
		}
	}
	fmt.Fprintf(w, "correct: %v %s\n", r.Correct, strings.Join(r.Problems, "; "))
}

// pickFailed chooses round(n·frac) distinct set indexes.
func pickFailed(n int, frac float64, seed int64) map[int]bool {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	perm := rng.Perm(n)
	k := int(float64(n)*frac + 0.5)
	out := make(map[int]bool, k)
	for _, i := range perm[:k] {
		out[i] = true
	}
	return out
}

// fmtPcts renders per-node percentages sorted by node.
func fmtPcts(m map[string]float64) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.1f%%", k, m[k])
	}
	return strings.Join(parts, ", ")
}
