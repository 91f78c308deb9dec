//go:build embedded_controller

package controllertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// lookups is the route load of the upgrade test: two clients looking
// upTopic up in a loop, each lookup starting at the next NameServer. As a
// RocketMQ client does, a lookup that cannot reach a NameServer (or is
// answered GO_AWAY or busy) asks the next; it fails when none answers the
// route, or when one answers TOPIC_NOT_EXIST or a route without the
// broker. Counts are kept per phase (the phase the lookup started in).
type lookups struct {
	ns     []string
	broker string
	next   atomic.Uint64
	mu     sync.Mutex
	phase  string
	phases []string
	ok     map[string]int
	fails  map[string][]string
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// lookupsPerPhase is how many lookups each phase must see succeed.
const lookupsPerPhase = 50

func startLookups(t *testing.T, ns []string, broker string) *lookups {
	ctx, cancel := context.WithCancel(context.Background())
	l := &lookups{ns: ns, broker: broker, ok: map[string]int{}, fails: map[string][]string{}, cancel: cancel}
	l.setPhase("old binary")
	for range 2 {
		l.wg.Go(func() { l.loop(ctx) })
	}
	t.Cleanup(l.stop)
	return l
}

func (l *lookups) setPhase(p string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.phase = p
	l.phases = append(l.phases, p)
}

func (l *lookups) phaseName() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.phase
}

func (l *lookups) loop(ctx context.Context) {
	clients := map[string]*remoting.Client{}
	defer func() {
		for _, c := range clients {
			_ = c.Close()
		}
	}()
	for ctx.Err() == nil {
		phase := l.phaseName()
		err := l.lookup(ctx, clients)
		if ctx.Err() != nil {
			return
		}
		l.mu.Lock()
		if err == nil {
			l.ok[phase]++
		} else {
			l.fails[phase] = append(l.fails[phase], err.Error())
		}
		l.mu.Unlock()
		sleepCtx(ctx, 5*time.Millisecond)
	}
}

// lookup asks the NameServers from the next one on until one answers.
func (l *lookups) lookup(ctx context.Context, clients map[string]*remoting.Client) error {
	start := int(l.next.Add(1))
	var errs []error
	for k := range l.ns {
		ns := l.ns[(start+k)%len(l.ns)]
		err := l.ask(ctx, clients, ns)
		var re *routeError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &re) && re.code != remoting.GoAway && re.code != remoting.SystemBusy:
			return fmt.Errorf("%s: %w", ns, err) // a wrong answer: no retry hides it
		}
		errs = append(errs, fmt.Errorf("%s: %w", ns, err))
	}
	return errors.Join(errs...)
}

func (l *lookups) ask(ctx context.Context, clients map[string]*remoting.Client, ns string) error {
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c := clients[ns]
	if c == nil {
		var err error
		if c, err = remoting.Dial(cctx, ns, remoting.ClientOptions{}); err != nil {
			return err
		}
		clients[ns] = c
	}
	err := checkRoute(cctx, c)
	var re *routeError
	if err != nil && !errors.As(err, &re) {
		_ = c.Close()
		delete(clients, ns)
	}
	return err
}

// await waits until phase has lookupsPerPhase successful lookups.
func (l *lookups) await(t *testing.T, phase string) {
	t.Helper()
	require.Eventually(t, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.ok[phase] >= lookupsPerPhase
	}, waitLimit, 10*time.Millisecond, "phase %q: fewer than %d lookups", phase, lookupsPerPhase)
}

func (l *lookups) stop() {
	l.cancel()
	l.wg.Wait()
}

// report logs the lookups served and failed per phase.
func (l *lookups) report(t *testing.T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.phases {
		t.Logf("lookups in phase %q: %d served, %d failed", p, l.ok[p], len(l.fails[p]))
	}
}

func (l *lookups) requireNoFailures(t *testing.T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.phases {
		require.Empty(t, l.fails[p], "failed lookups in phase %q", p)
	}
}
