package admin

import (
	"context"
	"time"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// Defaults of WaitOptions.
const (
	DefaultWaitTimeout  = 60 * time.Second
	DefaultWaitInterval = 500 * time.Millisecond
)

// WaitOptions says which route to wait for.
type WaitOptions struct {
	NameServers []string
	Topic       string
	// Writable also requires a queue with write permission and write
	// queues on a broker whose master (id 0) is in the route.
	Writable bool
	Timeout  time.Duration // default DefaultWaitTimeout
	Interval time.Duration // between rounds; default DefaultWaitInterval
	// Progress, when set, is called after each round with the result so
	// far (mqadmin shows it on a terminal).
	Progress func(*WaitResult)
}

// WaitStatus is one NameServer's state at the last round.
type WaitStatus struct {
	NameServer string `json:"nameServer"`
	Ready      bool   `json:"ready"`
	Detail     string `json:"detail"`
}

// WaitResult is the outcome of WaitRoute.
type WaitResult struct {
	Ready    bool          `json:"ready"`
	Elapsed  time.Duration `json:"elapsedNanos"`
	Rounds   int           `json:"rounds"`
	Statuses []WaitStatus  `json:"statuses"`
}

// WaitRoute asks every NameServer for the topic's route, round after
// round, until all of them return one (writable when asked) or the
// timeout passes.
func (c *Client) WaitRoute(ctx context.Context, opts WaitOptions) *WaitResult {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultWaitTimeout
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultWaitInterval
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	res := &WaitResult{}
	for {
		st, ready := c.waitRound(ctx, opts)
		// a round the time-out cut short does not replace a complete one:
		// its lookups failed on our deadline, not on the NameServer
		if ready || ctx.Err() == nil || res.Rounds == 0 {
			res.Statuses, res.Ready = st, ready
			res.Rounds++
		}
		res.Elapsed = time.Since(start)
		if opts.Progress != nil {
			opts.Progress(res)
		}
		if res.Ready || !sleepCtx(ctx, opts.Interval) {
			return res
		}
	}
}

// waitRound asks every NameServer once, concurrently.
func (c *Client) waitRound(ctx context.Context, opts WaitOptions) ([]WaitStatus, bool) {
	st := make([]WaitStatus, len(opts.NameServers))
	forEach(len(st), len(st), func(i int) { st[i] = c.waitStatus(ctx, opts.NameServers[i], opts) })
	all := len(st) > 0
	for _, s := range st {
		all = all && s.Ready
	}
	return st, all
}

func (c *Client) waitStatus(ctx context.Context, ns string, opts WaitOptions) WaitStatus {
	s := WaitStatus{NameServer: ns}
	rd, err := c.TopicRoute(ctx, ns, opts.Topic)
	switch {
	case err != nil:
		s.Detail = err.Error()
	case opts.Writable && !routeWritable(rd):
		s.Detail = "route has no writable queue on a master: " + routeBrokers(rd)
	default:
		s.Ready, s.Detail = true, "route names brokers "+routeBrokers(rd)
	}
	return s
}

// routeWritable reports whether some writable queue's broker has a master.
func routeWritable(rd *wire.TopicRouteData) bool {
	masters := map[string]bool{}
	for _, b := range rd.BrokerDatas {
		_, masters[b.BrokerName] = b.BrokerAddrs[wire.MasterID]
	}
	for _, q := range rd.QueueDatas {
		if writable(q) && masters[q.BrokerName] {
			return true
		}
	}
	return false
}

// sleepCtx waits d; false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
