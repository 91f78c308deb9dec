package soak

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/namesrv"
	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// plan is one soak run's size.
type plan struct {
	conns    int           // all client connections
	duration time.Duration // load phase
	rate     float64       // requests per second over all healthy connections
	seed     uint64
}

// planFromEnv is the short plan (~15 s, 100 connections) unless
// RMQ_TEST_LONG=1 (1,000 connections, 2 minutes); RMQ_SOAK_DURATION (a Go
// duration) sets the load phase, RMQ_SOAK_SEED replays a seed.
func planFromEnv(t *testing.T) plan {
	p := plan{conns: 100, duration: 12 * time.Second, rate: 1500, seed: uint64(time.Now().UnixNano())}
	if os.Getenv("RMQ_TEST_LONG") == "1" {
		p = plan{conns: 1000, duration: 2 * time.Minute, rate: 5000, seed: p.seed}
	}
	if v := os.Getenv("RMQ_SOAK_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err, "RMQ_SOAK_DURATION")
		p.duration = d
	}
	if v := os.Getenv("RMQ_SOAK_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		require.NoError(t, err, "RMQ_SOAK_SEED")
		p.seed = s
	}
	t.Logf("seed=%d (replay with RMQ_SOAK_SEED=%d) conns=%d duration=%s", p.seed, p.seed, p.conns, p.duration)
	return p
}

// quietLogger logs warnings and errors only: thousands of connections
// would flood the test output at debug level.
func quietLogger(t *testing.T, name string) hclog.Logger {
	l := testlog.New(t, name)
	l.SetLevel(hclog.Warn)
	return l
}

// openFDs counts this process's open file descriptors (Linux; -1 elsewhere).
func openFDs() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

// rssMiB is the resident set size from /proc/self/status (Linux; 0
// elsewhere), in MiB.
func rssMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// goroutines counts the goroutines of the program (not the runtime's own,
// such as the finalizer goroutine, which runtime.NumGoroutine may count).
func goroutines() int { return pprof.Lookup("goroutine").Count() }

// heapMiB is the live heap after a collection, in MiB.
func heapMiB() float64 {
	runtime.GC()
	runtime.GC() // the second empties the sync.Pool victim caches
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

// startNameServer starts an in-process NameServer on loopback with a short
// idle timeout, so that non-reading clients are closed during the run.
func startNameServer(t *testing.T) *namesrv.Server {
	logger := quietLogger(t, "namesrv")
	if os.Getenv("RMQ_SOAK_LOG") != "" {
		logger.SetLevel(hclog.Info)
	}
	return namesrvtest.Start(t, namesrvtest.WithLogger(logger), namesrvtest.WithConfig(func(c *config.NamesrvConfig) {
		c.ServerChannelMaxIdleTimeSeconds = 3
		c.ServerChannelMaxPendingResponseBytes = 1 << 20
	}))
}

// TestSoak runs healthy clients (route lookups, 5 % re-registrations) next
// to clients that drop their connections, never read or read slowly, and
// checks that healthy clients see no error and that goroutines, file
// descriptors and the heap come back to where they started.
func TestSoak(t *testing.T) {
	p := planFromEnv(t)
	leakOpt := goleak.IgnoreCurrent()
	baseG, baseFD := goroutines(), openFDs()
	srv := startNameServer(t)
	serverFD := openFDs() // the listener and the poller's descriptors
	env := newSoakEnv(t, srv.Addr().String(), p)
	startHeap, startRSS := heapMiB(), rssMiB()

	var stats soakStats
	peak := env.run(&stats)
	env.closeAll()
	poll.Until(t, "every client connection closed", 10*time.Second, 10*time.Millisecond, poll.True(func() bool { return openFDs() <= serverFD }))
	endHeap, endRSS := heapMiB(), rssMiB()
	t.Logf("requests ok=%d healthy errors=%d registrations=%d drops=%d stuck closed by server=%d slow responses=%d",
		stats.ok.Load(), stats.errors.Load(), stats.registers.Load(), stats.drops.Load(),
		stats.stuckClosed.Load(), stats.slowRead.Load())
	t.Logf("heap start=%.1f MiB peak=%.1f MiB end=%.1f MiB; RSS start=%.1f MiB end=%.1f MiB; goroutines base=%d; fds base=%d",
		startHeap, peak, endHeap, startRSS, endRSS, baseG, baseFD)
	require.Zero(t, stats.errors.Load(), "errors on healthy connections; first: %v", stats.firstError())
	require.Positive(t, stats.ok.Load())
	require.Positive(t, stats.stuckClosed.Load(), "non-reading clients were closed by the server")
	require.Less(t, endHeap-startHeap, 16.0, "heap not flat")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.Shutdown(ctx))
	goleak.VerifyNone(t, leakOpt)
	poll.Until(t, "goroutines back to the baseline", 10*time.Second, 10*time.Millisecond, poll.True(func() bool { return goroutines() <= baseG }))
	poll.Until(t, "file descriptors back to the baseline", 10*time.Second, 10*time.Millisecond, poll.True(func() bool { return openFDs() <= baseFD }))
	t.Logf("goroutines end=%d fds end=%d", goroutines(), openFDs())
}

// soakStats counts what the clients saw.
type soakStats struct {
	ok, errors, registers, drops, stuckClosed, slowRead atomic.Int64
	mu                                                  sync.Mutex
	first                                               error
}

func (s *soakStats) fail(err error) {
	if s.errors.Add(1) == 1 {
		s.mu.Lock()
		s.first = err
		s.mu.Unlock()
	}
}

func (s *soakStats) firstError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.first
}

// newRand returns the generator of client i, derived from the run's seed.
func newRand(seed uint64, i int) *rand.Rand { return rand.New(rand.NewPCG(seed, uint64(i))) }

// brokers registers a few fake brokers over connections of their own and
// returns them with their topic names.
func brokers(t *testing.T, addr string, n, topics int) ([]*fakebroker.Broker, []*remoting.Client, []string) {
	var bs []*fakebroker.Broker
	var conns []*remoting.Client
	var names []string
	for i := range n {
		var tcs []wire.TopicConfig
		for j := range topics {
			tcs = append(tcs, fakebroker.Topic("SoakTopic-"+strconv.Itoa(i)+"-"+strconv.Itoa(j), 4))
		}
		b, err := fakebroker.New(fakebroker.Config{BrokerName: "soak-" + strconv.Itoa(i), Topics: tcs,
			Logger: quietLogger(t, "broker")})
		require.NoError(t, err)
		c, err := remoting.Dial(context.Background(), addr, remoting.ClientOptions{Logger: quietLogger(t, "client")})
		require.NoError(t, err)
		req, err := b.RegisterRequest()
		require.NoError(t, err)
		resp, err := invoke(c, req)
		require.NoError(t, err)
		require.Equal(t, remoting.Success, resp.Code, resp.Remark)
		bs, conns = append(bs, b), append(conns, c)
		for _, tc := range tcs {
			names = append(names, tc.TopicName)
		}
	}
	return bs, conns, names
}

// invoke sends req with a 10 s deadline.
func invoke(c *remoting.Client, req *remoting.Command) (*remoting.Command, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Invoke(ctx, req)
}
