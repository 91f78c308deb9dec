package admin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/rmqgo/nameserver/remoting"
)

// DefaultProbeTimeout bounds each step of a broker endpoint probe.
const DefaultProbeTimeout = 2 * time.Second

// Probe is what a broker endpoint did when contacted from here.
type Probe struct {
	Addr       string `json:"addr"`
	AcceptsTCP bool   `json:"acceptsTcp"`
	Answers    bool   `json:"answers"` // replied to a request, whatever the code
	Error      string `json:"error,omitempty"`
}

// ProbeBroker connects to a broker endpoint and sends it one request
// (GET_BROKER_RUNTIME_INFO). Any reply, even an error code, counts as an
// answer. Each step waits at most timeout.
func ProbeBroker(ctx context.Context, addr string, timeout time.Duration) Probe {
	p := Probe{Addr: addr}
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nc, err := d.DialContext(dctx, "tcp", addr)
	if err != nil {
		p.Error = err.Error()
		return p
	}
	_ = nc.Close()
	p.AcceptsTCP = true
	if err := askBroker(ctx, addr, timeout); err != nil {
		p.Error = err.Error()
		return p
	}
	p.Answers = true
	return p
}

// askBroker sends one request over a fresh connection and waits for any reply.
func askBroker(ctx context.Context, addr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rc, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = rc.Invoke(ctx, remoting.NewRequest(getBrokerRuntimeInfo, nil, nil))
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, remoting.ErrTimeout) {
		return fmt.Errorf("no reply within %s", timeout)
	}
	return err
}

// probeAll probes addrs concurrently.
func probeAll(ctx context.Context, addrs []string, timeout time.Duration) map[string]Probe {
	out := make(map[string]Probe, len(addrs))
	res := make([]Probe, len(addrs))
	forEach(len(addrs), 16, func(i int) { res[i] = ProbeBroker(ctx, addrs[i], timeout) })
	for _, p := range res {
		out[p.Addr] = p
	}
	return out
}
