package integration

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/namesrv/namesrvtest"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// Phases of the rolling restart; a lookup counts in the phase it started in.
const (
	phaseWarm      = iota // all three up
	phaseGoingAway        // the restarted node in its graceful shutdown
	phaseDown             // the node gone
	phaseEmpty            // the node back, the broker not yet re-registered
	phaseBack             // the broker re-registered with it
	phases
)

var phaseNames = [phases]string{"warm", "going away", "down", "restarted, empty", "re-registered"}

// loadStats counts the lookups of the load workers per phase.
type loadStats struct {
	phase atomic.Int32
	mu    sync.Mutex
	ok    [phases]int
	fails [phases][]string
	slow  [phases]time.Duration // longest call
}

func (s *loadStats) record(phase int32, took time.Duration, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slow[phase] = max(s.slow[phase], took)
	if err == nil {
		s.ok[phase]++
		return
	}
	s.fails[phase] = append(s.fails[phase], err.Error())
}

func (s *loadStats) okIn(phase int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ok[phase]
}

// runLoad runs fn in a loop on a goroutine until stop is closed.
func (s *loadStats) runLoad(wg *sync.WaitGroup, stop chan struct{}, fn func() error) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			p, start := s.phase.Load(), time.Now()
			err := fn()
			s.record(p, time.Since(start), err)
		}
	}()
}

// gracefulNamesrv starts a NameServer with enableShutdownGracefully and a
// shutdownWaitTimeSeconds of 3 on port (0: any), forwarding the lookups of
// topics it does not know to warmupPeers for 90 s after start.
func gracefulNamesrv(t *testing.T, name string, port int, warmupPeers ...string) (addr string, stop func()) {
	srv := namesrvtest.Start(t, namesrvtest.WithLogger(testLogger(t, name)), namesrvtest.WithConfig(func(c *config.NamesrvConfig) {
		c.ListenPort = port
		c.EnableShutdownGracefully = true
		c.ShutdownWaitTimeSeconds = 3
		c.WarmupForwardPeers = strings.Join(warmupPeers, ";")
	}))
	return srv.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), srv.Config().ShutdownBudget()+waitTimeout)
		defer cancel()
		require.NoError(t, srv.Shutdown(ctx))
	}
}

// TestRollingRestartZeroFailedLookups: three NameServers, a broker
// (Java frames) registered with all, rocketmq-client-go admins looking the
// route up in a loop (each lookup goes to the next NameServer) and a
// producer sending. One NameServer is shut down gracefully, stays down,
// and comes back on its port. No lookup and no send fails while it goes
// away and while it is down; during its GO_AWAY phase the broker's
// registration there is answered GO_AWAY (1500) and its route stays on the
// other two. The node comes back with the three as warmupForwardPeers (its
// own entry ignored): before the broker registers with it again, it
// forwards the lookups it cannot answer, so none fails (a restarted Java
// NameServer answers TOPIC_NOT_EXIST there), and a new producer whose only
// NameServer is the restarted one sends. After the broker re-registered,
// no lookup fails either.
func TestRollingRestartZeroFailedLookups(t *testing.T) {
	addrA, stopA := gracefulNamesrv(t, "ns-a", 0)
	addrB, stopB := gracefulNamesrv(t, "ns-b", 0)
	addrC, stopC := gracefulNamesrv(t, "ns-c", 0)
	all := []string{addrA, addrB, addrC}
	b := newBroker(t, fakebroker.Config{NameServers: all, Topics: []fakebroker.TopicConfig{fakebroker.Topic("RollTopic", 4)}})
	require.NoError(t, b.RegisterAll(ctxT(t)))

	stats := &loadStats{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	startLoad(t, stats, &wg, stop, all)
	var stopOnce sync.Once
	stopLoad := func() { stopOnce.Do(func() { close(stop); wg.Wait() }) }
	defer stopLoad()

	awaitLookups(t, stats, phaseWarm)
	stats.phase.Store(phaseGoingAway)
	stopped := make(chan struct{})
	go func() { defer close(stopped); stopB() }()
	awaitGoAwayForBroker(t, b, addrB)
	for _, ns := range []string{addrA, addrC} {
		require.NoError(t, routeHasBroker(ctxT(t), dialNS(t, ns), "RollTopic", b), ns)
	}
	<-stopped
	stats.phase.Store(phaseDown)
	awaitLookups(t, stats, phaseDown)

	stats.phase.Store(phaseEmpty)
	_, port, _ := net.SplitHostPort(addrB)
	p, _ := strconv.Atoi(port)
	_, stopB2 := gracefulNamesrv(t, "ns-b2", p, all...) // its own address is ignored
	awaitLookups(t, stats, phaseEmpty)
	sendThroughOnly(t, addrB) // a new producer whose only NameServer is the restarted one
	_, err := b.Register(ctxT(t), addrB)
	require.NoError(t, err)
	stats.phase.Store(phaseBack)
	awaitLookups(t, stats, phaseBack)
	stopLoad()
	checkLoad(t, stats)
	stopAll(stopA, stopB2, stopC) // each waits its GO_AWAY phase: the clients keep their connections
}

// stopAll runs the stop functions at once and waits for them.
func stopAll(stops ...func()) {
	var wg sync.WaitGroup
	for _, stop := range stops {
		wg.Add(1)
		go func() { defer wg.Done(); stop() }()
	}
	wg.Wait()
}

// startLoad starts two admin lookup loops (FetchClusterList sends
// GET_ROUTEINFO_BY_TOPIC to the next NameServer each time) and a producer
// sending in a loop.
func startLoad(t *testing.T, stats *loadStats, wg *sync.WaitGroup, stop chan struct{}, addrs []string) {
	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver(addrs)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = adm.Close() })
	lookup := func() error {
		clusters, err := adm.FetchClusterList("RollTopic")
		if err == nil && len(clusters) != 1 {
			err = fmt.Errorf("clusters %v", clusters)
		}
		return err
	}
	stats.runLoad(wg, stop, lookup)
	stats.runLoad(wg, stop, lookup)
	pr, err := producer.NewDefaultProducer(producer.WithNameServer(addrs), producer.WithRetry(2),
		producer.WithGroupName("roll_producer"), producer.WithInstanceName(instanceName(t)),
		producer.WithSendMsgTimeout(10*time.Second))
	require.NoError(t, err)
	require.NoError(t, pr.Start())
	t.Cleanup(func() { _ = pr.Shutdown() })
	stats.runLoad(wg, stop, func() error {
		_, err := pr.SendSync(context.Background(), primitive.NewMessage("RollTopic", []byte("roll")))
		return err
	})
}

// sendThroughOnly sends one message with a new rocketmq-client-go producer
// whose only NameServer is ns: its route lookup must succeed there.
func sendThroughOnly(t *testing.T, ns string) {
	pr, err := producer.NewDefaultProducer(producer.WithNameServer([]string{ns}), producer.WithRetry(0),
		producer.WithGroupName("roll_only_producer"), producer.WithInstanceName(instanceName(t)))
	require.NoError(t, err)
	require.NoError(t, pr.Start())
	defer func() { _ = pr.Shutdown() }()
	_, err = pr.SendSync(context.Background(), primitive.NewMessage("RollTopic", []byte("only")))
	require.NoError(t, err, "a lookup on the restarted NameServer %s", ns)
}

// awaitLookups waits until the load has made 30 successful calls in phase
// (every NameServer seen about ten times by each lookup loop).
func awaitLookups(t *testing.T, stats *loadStats, phase int) {
	poll.Until(t, "lookups in phase "+phaseNames[phase], waitTimeout, 10*time.Millisecond, func() error {
		if n := stats.okIn(phase); n < 30 {
			return fmt.Errorf("%d successful calls", n)
		}
		return nil
	})
}

// awaitGoAwayForBroker registers b with ns until the answer is GO_AWAY
// (b speaks as a 5.3.3 broker), while ns is going away.
func awaitGoAwayForBroker(t *testing.T, b *fakebroker.Broker, ns string) {
	poll.Until(t, "GO_AWAY to the broker's registration", waitTimeout, 10*time.Millisecond, func() error {
		_, err := b.Register(ctxT(t), ns)
		if err != nil && strings.Contains(err.Error(), "1500") {
			return nil
		}
		return fmt.Errorf("register: %v", err)
	})
}

// checkLoad fails on any failed call, in every phase; it logs the counts.
func checkLoad(t *testing.T, stats *loadStats) {
	stats.mu.Lock()
	defer stats.mu.Unlock()
	for p := range phases {
		t.Logf("phase %-17s ok %6d failed %d longest %v", phaseNames[p], stats.ok[p], len(stats.fails[p]), stats.slow[p])
		for _, f := range stats.fails[p] {
			t.Errorf("phase %s: failed call: %s", phaseNames[p], f)
		}
	}
}
