package ctlbroker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/hashicorp/go-hclog"
)

// FlowConfig configures Run. Zero values take the defaults.
type FlowConfig struct {
	Controllers []string // controllerAddr entries; required
	NameServers []string // namesrvAddr entries; empty skips the NameServer steps
	Cluster     string   // default DefaultCluster
	BrokerName  string   // default "brokerflow-<unix millis>", a fresh set
	Brokers     int      // replicas in the set, 2 or 3; default 3
	// HeartbeatInterval is the periodic 904 period (Java: 1 s).
	HeartbeatInterval time.Duration
	// HeartbeatTimeout is sent in 904 (Java: 10 s).
	HeartbeatTimeout time.Duration
	// StepTimeout bounds each step, waits included; default 30 s.
	StepTimeout time.Duration
	// Keep leaves the broker set in the controllers (no 1011 at the end).
	Keep   bool
	Out    io.Writer    // step lines; nil discards
	Logger hclog.Logger // nil discards
}

func (c FlowConfig) withDefaults() FlowConfig {
	if c.Cluster == "" {
		c.Cluster = DefaultCluster
	}
	if c.BrokerName == "" {
		c.BrokerName = fmt.Sprintf("brokerflow-%d", time.Now().UnixMilli())
	}
	if c.Brokers == 0 {
		c.Brokers = 3
	}
	if c.HeartbeatInterval <= 0 {
		c.HeartbeatInterval = time.Second
	}
	if c.StepTimeout <= 0 {
		c.StepTimeout = 30 * time.Second
	}
	if c.Out == nil {
		c.Out = io.Discard
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	return c
}

func (c FlowConfig) validate() error {
	switch {
	case len(c.Controllers) == 0:
		return errors.New("brokerflow: no controller address")
	case c.Brokers < 2 || c.Brokers > 3:
		return fmt.Errorf("brokerflow: %d brokers; a failover needs 2 or 3", c.Brokers)
	}
	return nil
}

// Result summarises a successful Run.
type Result struct {
	Steps    int
	Elapsed  time.Duration
	Failover time.Duration // master connections closed → last survivor's 1008
	Master   int64         // id of the master after the failover
}

// step is one named stage of the flow; it returns a one-line detail.
type step struct {
	name string
	run  func(ctx context.Context) (string, error)
}

// Run plays cfg.Brokers brokers of one fresh broker set through the
// controller-mode script (see the package doc), printing each step with
// its timing to cfg.Out. The first failing step ends the run with its
// error; the brokers are closed in any case.
func Run(ctx context.Context, cfg FlowConfig) (Result, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return Result{}, err
	}
	f := &flow{cfg: cfg, start: time.Now()}
	defer f.closeBrokers()
	fmt.Fprintf(cfg.Out, "brokerflow: cluster %s, broker set %s, %d brokers; controllers %v; namesrvs %v\n",
		cfg.Cluster, cfg.BrokerName, cfg.Brokers, cfg.Controllers, cfg.NameServers)
	steps := append(f.setupSteps(), f.failoverSteps()...)
	for i, s := range steps {
		if err := f.runStep(ctx, i+1, s); err != nil {
			return Result{}, err
		}
	}
	res := Result{Steps: len(steps), Elapsed: time.Since(f.start), Failover: f.failover, Master: f.master.ID()}
	fmt.Fprintf(cfg.Out, "brokerflow: OK, %d steps in %s; failover (master connections closed to the last survivor's 1008) %s\n",
		res.Steps, ms(res.Elapsed), ms(res.Failover))
	return res, nil
}

// runStep runs s within StepTimeout and prints its line.
func (f *flow) runStep(ctx context.Context, n int, s step) error {
	ctx, cancel := context.WithTimeout(ctx, f.cfg.StepTimeout)
	defer cancel()
	t0 := time.Now()
	detail, err := s.run(ctx)
	at, took := ms(time.Since(f.start)), ms(time.Since(t0))
	if err != nil {
		fmt.Fprintf(f.cfg.Out, "[+%10s] %2d. %-38s %10s  FAILED: %v\n", at, n, s.name, took, err)
		return fmt.Errorf("step %d (%s): %w", n, s.name, err)
	}
	fmt.Fprintf(f.cfg.Out, "[+%10s] %2d. %-38s %10s  %s\n", at, n, s.name, took, detail)
	return nil
}

// ms formats d in milliseconds with one decimal, "12.3ms".
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + "ms"
}

// poll runs check every 10 ms until it returns nil or ctx ends, then
// returns check's last error.
func poll(ctx context.Context, check func() error) error {
	for {
		err := check()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (after %v)", err, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
