package soak

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// soakEnv holds the registered brokers and runs the clients.
type soakEnv struct {
	t           *testing.T
	addr        string
	p           plan
	brokers     []*fakebroker.Broker
	brokerConns []*remoting.Client
	registers   []*remoting.Command
	topics      []string
	stop        chan struct{}
	wg          sync.WaitGroup
	mu          sync.Mutex
	idle        []*remoting.Client // healthy clients, closed by closeAll
}

func newSoakEnv(t *testing.T, addr string, p plan) *soakEnv {
	e := &soakEnv{t: t, addr: addr, p: p, stop: make(chan struct{})}
	e.brokers, e.brokerConns, e.topics = brokers(t, addr, 4, 50)
	for _, b := range e.brokers {
		req, err := b.RegisterRequest()
		if err != nil {
			t.Fatal(err)
		}
		e.registers = append(e.registers, req)
	}
	return e
}

// run starts every client, keeps the load for the plan's duration while
// sampling the heap each second, stops the clients and returns the peak
// heap in MiB.
func (e *soakEnv) run(s *soakStats) float64 {
	odd := min(max(e.p.conns/50, 2), 10)
	churn := e.p.conns / 10
	healthy := e.p.conns - 2*odd - churn - len(e.brokers)
	interval := time.Duration(float64(healthy) / e.p.rate * float64(time.Second))
	e.t.Logf("clients: healthy=%d churn=%d non-reading=%d slow=%d brokers=%d, pause about %s",
		healthy, churn, odd, odd, len(e.brokers), interval)
	id := 0
	spawn := func(n int, fn func(r *rand.Rand)) {
		for range n {
			r := newRand(e.p.seed, id)
			id++
			e.wg.Add(1)
			go func() { defer e.wg.Done(); fn(r) }()
		}
	}
	for k := range e.brokers {
		e.wg.Add(1)
		go func() { defer e.wg.Done(); e.brokerLoop(k, s) }()
	}
	spawn(healthy, func(r *rand.Rand) { e.healthy(r, s, interval) })
	spawn(churn, func(r *rand.Rand) { e.churn(r, s, interval) })
	spawn(odd, func(*rand.Rand) { e.nonReading(s) })
	spawn(odd, func(*rand.Rand) { e.slowReading(s) })
	var peak float64
	for end := time.Now().Add(e.p.duration); time.Now().Before(end); time.Sleep(time.Second) {
		peak = max(peak, heapMiB())
	}
	close(e.stop)
	e.wg.Wait()
	return peak
}

// closeAll closes the healthy clients, the brokers and their connections.
// Healthy clients close only once all have stopped: each may carry a
// broker's latest registration, and closing it unregisters that broker
// under the lookups of the others.
func (e *soakEnv) closeAll() {
	for _, c := range e.idle {
		_ = c.Close()
	}
	for i, b := range e.brokers {
		_ = e.brokerConns[i].Close()
		_ = b.Close()
	}
}

// pause waits about interval (0 to 2x, uniformly); false once stopped.
func (e *soakEnv) pause(r *rand.Rand, interval time.Duration) bool {
	t := time.NewTimer(time.Duration(r.Int64N(int64(2*interval) + 1)))
	defer t.Stop()
	select {
	case <-e.stop:
		return false
	case <-t.C:
		return true
	}
}

func (e *soakEnv) dial() (*remoting.Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return remoting.Dial(ctx, e.addr, remoting.ClientOptions{})
}

// healthy does lookups and, 5 % of the time, re-registers a broker (over
// its own connection: a shared broker connection would queue the
// registrations of hundreds of clients and leave their connections idle);
// every failure counts.
func (e *soakEnv) healthy(r *rand.Rand, s *soakStats, interval time.Duration) {
	c, err := e.dial()
	if err != nil {
		s.fail(fmt.Errorf("healthy dial: %w", err))
		return
	}
	defer func() {
		e.mu.Lock()
		e.idle = append(e.idle, c)
		e.mu.Unlock()
	}()
	for e.pause(r, interval) {
		if r.IntN(100) < 5 {
			k := r.IntN(len(e.brokers))
			s.registers.Add(1)
			resp, err := invoke(c, e.registers[k])
			s.check("register", resp, err)
			continue
		}
		resp, err := invoke(c, e.lookup(r))
		s.check("healthy lookup", resp, err)
	}
}

// brokerLoop re-registers broker k over its own connection every second,
// as a broker does (every 30 s by default), so the connection never idles.
func (e *soakEnv) brokerLoop(k int, s *soakStats) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-tick.C:
			resp, err := invoke(e.brokerConns[k], e.registers[k])
			s.check("broker register", resp, err)
		}
	}
}

// lookup is a GET_ROUTEINFO_BY_TOPIC request for a registered topic.
func (e *soakEnv) lookup(r *rand.Rand) *remoting.Command {
	topic := e.topics[r.IntN(len(e.topics))]
	return remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": topic}, nil)
}

// check counts a healthy request's outcome.
func (s *soakStats) check(what string, resp *remoting.Command, err error) {
	switch {
	case err != nil:
		s.fail(fmt.Errorf("%s: %w", what, err))
	case resp.Code != remoting.Success || len(resp.Body) == 0 && resp.Remark != "":
		s.fail(fmt.Errorf("%s: code %d remark %q", what, resp.Code, resp.Remark))
	default:
		s.ok.Add(1)
	}
}

// churn connects, does a few lookups, then drops the connection, half of
// the time with a request still in flight.
func (e *soakEnv) churn(r *rand.Rand, s *soakStats, interval time.Duration) {
	for e.pause(r, interval) {
		c, err := e.dial()
		if err != nil {
			s.fail(fmt.Errorf("churn dial: %w", err))
			return
		}
		for n := r.IntN(10); n > 0 && e.pause(r, interval); n-- {
			resp, err := invoke(c, e.lookup(r))
			s.check("churn lookup", resp, err)
		}
		if r.IntN(2) == 0 {
			req := e.lookup(r)
			go func() { _, _ = invoke(c, req) }()
		}
		_ = c.Close()
		s.drops.Add(1)
	}
}

// requests encodes n lookups for one write.
func (e *soakEnv) requests(n int) []byte {
	r := newRand(e.p.seed, -1)
	var buf []byte
	for i := range n {
		req := e.lookup(r)
		req.Opaque = int32(i + 1)
		buf = remoting.EncodeFrame(buf, req)
	}
	return buf
}

// nonReading pipelines lookups and never reads; the server must stop
// reading it and close it after the idle timeout, then it reconnects.
func (e *soakEnv) nonReading(s *soakStats) {
	buf := e.requests(1000)
	for !e.stopped() {
		nc, err := net.Dial("tcp", e.addr)
		if err != nil {
			s.fail(fmt.Errorf("non-reading dial: %w", err))
			return
		}
		if e.writeUntilClosed(nc, buf) {
			s.stuckClosed.Add(1)
		}
		_ = nc.Close()
	}
}

// writeUntilClosed writes buf over and over (frames stay whole across
// partial writes) until the peer closes (true) or the run stops (false).
func (e *soakEnv) writeUntilClosed(nc net.Conn, buf []byte) bool {
	for pos := 0; ; {
		if e.stopped() {
			return false
		}
		_ = nc.SetWriteDeadline(time.Now().Add(500 * time.Millisecond))
		n, err := nc.Write(buf[pos:])
		pos = (pos + n) % len(buf)
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return true
		}
	}
}

func (e *soakEnv) stopped() bool {
	select {
	case <-e.stop:
		return true
	default:
		return false
	}
}

// slowReading pipelines bursts larger than the response cap and reads the
// answers slowly; it must be served in full, never closed.
func (e *soakEnv) slowReading(s *soakStats) {
	const burst = 2000
	buf := e.requests(burst)
	nc, err := net.Dial("tcp", e.addr)
	if err != nil {
		s.fail(err)
		return
	}
	defer nc.Close()
	r := bufio.NewReaderSize(nc, 4096)
	for !e.stopped() {
		go func() { _, _ = nc.Write(buf) }()
		for i := range burst {
			if err := s.readSlowly(nc, r, i); err != nil {
				s.fail(fmt.Errorf("slow reader: %w", err))
				return
			}
		}
	}
}

// readSlowly reads one response, pausing every 100th.
func (s *soakStats) readSlowly(nc net.Conn, r *bufio.Reader, i int) error {
	if i%100 == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	frame, err := remoting.ReadFrame(r, 0, nil)
	if err != nil {
		return err
	}
	resp, err := remoting.DecodeFrame(frame)
	if err != nil {
		return err
	}
	if resp.Code != remoting.Success {
		return fmt.Errorf("code %d remark %q", resp.Code, resp.Remark)
	}
	s.slowRead.Add(1)
	return nil
}
