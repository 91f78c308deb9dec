// Command loadgen is the end-to-end load tool of the NameServer. It builds
// ./cmd/namesrv (or takes -namesrv-bin), starts it as a child process on a
// loopback port, registers brokers over REGISTER_BROKER, and drives
// GET_ROUTEINFO_BY_TOPIC closed-loop the way rocketmq-client-go sends it.
// Next to it, it runs a transport-limit server (this binary re-executed with
// -serve-limit) that answers every lookup with one canned body and does no
// lookup, so that route QPS can be compared with what the framing allows.
//
// Workloads: small (QPS, latency, peak RSS vs the limit server), churn
// (lookup p99 while brokers re-register), rss (RSS per topic route of
// 100,000 topics), and with -tags embedded_controller ctlstorm (three
// Controller nodes in-process: failover storms, alter throughput and
// heartbeat load of a fleet of broker sets). It prints a table (or JSON with -json), marks missed
// targets MISSED and exits non-zero only on errors.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
)

// options are the command-line flags.
type options struct {
	workload   string
	duration   time.Duration
	warmup     time.Duration
	conns      int
	seed       int64
	namesrvBin string
	jsonOut    bool
	outFile    string
	profileDir string
	churnPct   int
	rounds     int
	churnBrk   int
	churnRate  float64
	churnEdit  bool
	scale1M    bool
	scaleOnly  int
	scaleLoads int
	scaleHeap  bool
	verbose    bool
	tlsKey     string
	tlsEvery   int
	ctl        ctlOptions

	// hidden child modes
	serveLimit   bool
	serveLean    bool
	serveNamesrv bool
	limitBody    string
	configFile   string
	listen       string
	cpuProfile   string
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses flags and runs a child mode or the requested workloads.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return 2
	}
	log := newLogger(stderr, o.verbose)
	switch {
	case o.serveLimit:
		err = serveLimit(o, stdout, log)
	case o.serveLean:
		err = serveLean(o, stdout, log)
	case o.serveNamesrv:
		err = serveNamesrv(o, stdout, log)
	case o.ctl.serveFleet:
		err = serveFleet(o.ctl, stdout, log)
	case o.workload == "ctlstorm":
		err = runCtlStormWorkload(o, stdout, stderr, log)
	default:
		err = runWorkloads(o, stdout, log)
	}
	if err != nil {
		log.Error("loadgen failed", "error", err)
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.workload, "workload", "all", "small | churn | rss | scale | restart | all | tls | ctlstorm (tls and ctlstorm are not part of all; ctlstorm needs -tags embedded_controller)")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "measured time of each lookup phase")
	fs.DurationVar(&o.warmup, "warmup", 2*time.Second, "warm-up before each lookup phase")
	fs.IntVar(&o.conns, "conns", 16, "closed-loop lookup connections")
	fs.Int64Var(&o.seed, "seed", 9191, "random seed of topic choice")
	fs.StringVar(&o.namesrvBin, "namesrv-bin", "", "NameServer binary (default: go build ./cmd/namesrv)")
	fs.BoolVar(&o.jsonOut, "json", false, "print JSON instead of the table")
	fs.StringVar(&o.outFile, "out", "", "also write the JSON report to this file")
	fs.StringVar(&o.profileDir, "profile-dir", "", "run the NameServer in-process in a loadgen child and write CPU profiles here (figures then describe that child)")
	fs.IntVar(&o.churnPct, "churn-pct", 5, "re-registrations as a percentage of operations in the churn phase")
	fs.IntVar(&o.churnBrk, "churn-brokers", churnBrokers, "churn: brokers sharing the 20,000 topics (4 per topic)")
	fs.Float64Var(&o.churnRate, "churn-rate", 0, "churn: paced lookups/s (0 = from the writer's flat-out rate)")
	fs.BoolVar(&o.churnEdit, "churn-edit", false, "churn: each re-registration also changes every topic's write queue count (4 <-> 5), so every topic is rebuilt")
	fs.BoolVar(&o.scale1M, "scale-1m", false, "scale and restart: add the 1M-topic row and storm 1M topics (as BENCH_SCALE=1m); takes minutes")
	fs.IntVar(&o.scaleOnly, "scale-topics", 0, "scale: run only the row with this many topics (0 = every row)")
	fs.IntVar(&o.scaleLoads, "scale-loads", 0, "scale: loads of each row's topology, each a new DataVersion with every topic's write queue count changed (4 <-> 5); 0 = 3 for the 1M row, 1 for the others")
	fs.BoolVar(&o.scaleHeap, "scale-heap", false, "scale: run the NameServer with metricsExporterType=PROM and read its Go heap from /metrics after each load")
	fs.IntVar(&o.rounds, "rounds", 5, "small: alternate NameServer and limit server in this many slices of -duration")
	fs.BoolVar(&o.verbose, "v", false, "debug logs")
	fs.StringVar(&o.tlsKey, "tls-key", keyECDSA, "tls: server certificate key, ecdsa (P-256) or rsa (2048)")
	fs.IntVar(&o.tlsEvery, "tls-reconnect-every", 1, "tls: lookups per connection in the reconnect phase")
	o.ctl.register(fs)
	fs.BoolVar(&o.serveLimit, "serve-limit", false, "internal: run the transport-limit server")
	fs.BoolVar(&o.serveLean, "serve-lean", false, "internal: run the lean transport-limit server")
	fs.BoolVar(&o.serveNamesrv, "serve-namesrv", false, "internal: run a NameServer in-process (profiling)")
	fs.StringVar(&o.limitBody, "limit-body", "", "internal: canned route body file of -serve-limit")
	fs.StringVar(&o.configFile, "c", "", "internal: config file of -serve-namesrv")
	fs.StringVar(&o.listen, "listen", "", "internal: listen address of -serve-limit")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "internal: CPU profile file of a serve mode")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	return o, o.validate()
}

// validate checks the flag values that would make a run meaningless.
func (o options) validate() error {
	switch o.workload {
	case "small", "churn", "rss", "scale", "restart", "all", "tls":
	case "ctlstorm":
		return o.ctl.validate()
	default:
		return fmt.Errorf("unknown workload %q", o.workload)
	}
	if o.conns < 1 || o.conns > 1024 || o.duration <= 0 || o.duration > 10*time.Minute {
		return errors.New("need 1 <= -conns <= 1024 and 0 < -duration <= 10m")
	}
	if o.warmup < 0 || o.warmup > time.Minute || o.churnPct < 1 || o.churnPct > 50 {
		return errors.New("need 0 <= -warmup <= 1m and 1 <= -churn-pct <= 50")
	}
	if o.rounds < 1 || o.rounds > 100 || o.churnBrk < churnWidth || o.churnBrk > 10_000 {
		return errors.New("need 1 <= -rounds <= 100 and 4 <= -churn-brokers <= 10000")
	}
	if o.scaleLoads < 0 || o.scaleLoads > maxScaleLoads {
		return fmt.Errorf("need 0 <= -scale-loads <= %d", maxScaleLoads)
	}
	if o.churnRate < 0 || o.churnRate > 1e6 {
		return errors.New("need 0 <= -churn-rate <= 1e6")
	}
	if (o.tlsKey != keyECDSA && o.tlsKey != keyRSA) || o.tlsEvery < 1 || o.tlsEvery > 1_000_000 {
		return errors.New("need -tls-key ecdsa or rsa and 1 <= -tls-reconnect-every <= 1000000")
	}
	return nil
}

func newLogger(w io.Writer, verbose bool) hclog.Logger {
	level := hclog.Info
	if verbose {
		level = hclog.Debug
	}
	return hclog.New(&hclog.LoggerOptions{Name: "loadgen", Output: w, Level: level})
}
