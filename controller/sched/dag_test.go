//go:build embedded_controller

package sched

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// schedProbe records which tasks of a scheduler run, so that tests can
// release them one by one and check the order per key.
type schedProbe struct {
	mu      sync.Mutex
	started []string                 // names, in start order
	running map[string]Keys          // name → keys, while running
	release map[string]chan struct{} // name → closed to let it finish
	startCh chan string              // every start, in order
	clash   []string                 // two running tasks that shared a key
	starts  int                      // tasks the scheduler started (under its lock)
	seen    int                      // starts received by next
}

// newSchedProbe returns a scheduler of size and its probe.
func newSchedProbe(size int) (*Scheduler, *schedProbe) {
	p := &schedProbe{running: map[string]Keys{}, release: map[string]chan struct{}{}, startCh: make(chan string, 1024)}
	s := newTestScheduler(size)
	s.onStart = func(*task) { p.starts++ }
	return s, p
}

// submit enqueues task name with keys; it runs until released.
func (p *schedProbe) submit(s *Scheduler, name string, keys Keys) error {
	rel := make(chan struct{})
	p.mu.Lock()
	p.release[name] = rel
	p.mu.Unlock()
	return s.Submit(keys, func() {
		p.mu.Lock()
		for other, k := range p.running {
			if sharesKey(k, keys) {
				p.clash = append(p.clash, other+"/"+name)
			}
		}
		p.running[name] = keys
		p.started = append(p.started, name)
		p.mu.Unlock()
		p.startCh <- name
		<-rel
		p.mu.Lock()
		delete(p.running, name)
		p.mu.Unlock()
	})
}

// finish releases task name.
func (p *schedProbe) finish(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.release[name])
}

// next waits for the next start.
func (p *schedProbe) next(t *testing.T) string {
	t.Helper()
	p.seen++
	return <-p.startCh
}

// quiet requires that no task has started beyond the ones received (a
// start is counted under the scheduler's lock, before its goroutine runs).
func (p *schedProbe) quiet(t *testing.T, s *Scheduler) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	require.Equal(t, p.seen, p.starts, "a task started that must wait")
}

func sharesKey(a, b Keys) bool {
	if a.global || b.global {
		return true
	}
	for _, x := range a.keys {
		for _, y := range b.keys {
			if x == y {
				return true
			}
		}
	}
	return false
}

// Tasks of one broker set run one at a time in submission order; a task of
// another set runs meanwhile.
func TestSchedulerOrdersPerKey(t *testing.T) {
	s, p := newSchedProbe(16)
	require.NoError(t, p.submit(s, "a1", SetKeys("a")))
	require.NoError(t, p.submit(s, "a2", SetKeys("a")))
	require.NoError(t, p.submit(s, "b1", SetKeys("b")))
	require.NoError(t, p.submit(s, "ab", SetKeys("a", "b", "a")))
	require.ElementsMatch(t, []string{"a1", "b1"}, []string{p.next(t), p.next(t)}, "a1 and b1 run together")
	p.quiet(t, s) // a2 waits for a1, ab for both
	p.finish("b1")
	p.finish("a1")
	require.Equal(t, "a2", p.next(t))
	p.quiet(t, s)
	p.finish("a2")
	require.Equal(t, "ab", p.next(t))
	p.finish("ab")
	require.Empty(t, p.clash)
}

// A global task waits for every live task and holds back every later one.
func TestSchedulerGlobalTask(t *testing.T) {
	s, p := newSchedProbe(16)
	require.NoError(t, p.submit(s, "a", SetKeys("a")))
	require.NoError(t, p.submit(s, "b", SetKeys("b")))
	require.NoError(t, p.submit(s, "g", GlobalKeys()))
	require.NoError(t, p.submit(s, "c", SetKeys("c")))
	require.ElementsMatch(t, []string{"a", "b"}, []string{p.next(t), p.next(t)})
	p.finish("a")
	p.quiet(t, s)
	p.finish("b")
	require.Equal(t, "g", p.next(t))
	p.quiet(t, s)
	p.finish("g")
	require.Equal(t, "c", p.next(t), "c, a set nobody held, waited for the global task")
	p.finish("c")
	require.Empty(t, p.clash)
}

// Tasks that may grow the state share no key across sets: they run
// together (their growth is reserved by their builders, reserve.go).
func TestSchedulerGrowingTasksOfSetsRunTogether(t *testing.T) {
	s, p := newSchedProbe(16)
	require.NoError(t, p.submit(s, "grow-a", SetKeys("a")))
	require.NoError(t, p.submit(s, "grow-b", SetKeys("b")))
	require.ElementsMatch(t, []string{"grow-a", "grow-b"}, []string{p.next(t), p.next(t)})
	p.finish("grow-a")
	p.finish("grow-b")
	require.Empty(t, p.clash)
}

// The controller's own election of a set waits for the set's task that
// started (its entry may be in flight) and goes ahead of the set's tasks
// still waiting, which wait for it; own elections keep their order; a
// later task of the set follows them all.
func TestSchedulerOwnElectionGoesAheadOfWaitingTasks(t *testing.T) {
	s, p := newSchedProbe(16)
	require.NoError(t, p.submit(s, "running", SetKeys("a")))
	require.Equal(t, "running", p.next(t))
	for _, n := range []string{"w1", "w2", "w3"} {
		require.NoError(t, p.submit(s, n, SetKeys("a")))
	}
	require.NoError(t, p.submit(s, "own1", OwnElectionKeys("a")))
	require.NoError(t, p.submit(s, "own2", OwnElectionKeys("a")))
	require.NoError(t, p.submit(s, "later", SetKeys("a")))
	p.quiet(t, s)
	p.finish("running")
	for _, want := range []string{"own1", "own2", "w1", "w2", "w3", "later"} {
		require.Equal(t, want, p.next(t))
		p.quiet(t, s)
		p.finish(want)
	}
	require.NoError(t, p.submit(s, "alone", OwnElectionKeys("a")))
	require.Equal(t, "alone", p.next(t), "nothing live on the set: it starts at once")
	p.finish("alone")
	require.Empty(t, p.clash)
	require.Eventually(t, func() bool { return s.Pending() == 0 }, 10*time.Second, time.Millisecond)
}

// An own election does not go ahead of a live global task: it waits for
// it, as every task does.
func TestSchedulerOwnElectionWaitsForGlobal(t *testing.T) {
	s, p := newSchedProbe(16)
	require.NoError(t, p.submit(s, "a", SetKeys("a")))
	require.Equal(t, "a", p.next(t))
	require.NoError(t, p.submit(s, "g", GlobalKeys()))
	require.NoError(t, p.submit(s, "own", OwnElectionKeys("b")))
	p.quiet(t, s)
	p.finish("a")
	require.Equal(t, "g", p.next(t))
	p.quiet(t, s)
	p.finish("g")
	require.Equal(t, "own", p.next(t))
	p.finish("own")
	require.Empty(t, p.clash)
}

// The bound counts live tasks, waiting or running: full → errFull,
// and a finished task frees its place.
func TestSchedulerBound(t *testing.T) {
	s, p := newSchedProbe(3)
	require.NoError(t, p.submit(s, "a1", SetKeys("a")))
	require.NoError(t, p.submit(s, "a2", SetKeys("a")))
	require.NoError(t, p.submit(s, "b1", SetKeys("b")))
	require.ErrorIs(t, p.submit(s, "c1", SetKeys("c")), ErrFull)
	first := []string{p.next(t), p.next(t)}
	require.ElementsMatch(t, []string{"a1", "b1"}, first)
	p.finish("b1")
	require.Eventually(t, func() bool { return s.Pending() == 2 }, 10*time.Second, time.Millisecond, "b1 never finished")
	require.NoError(t, p.submit(s, "c2", SetKeys("c")))
	require.Equal(t, "c2", p.next(t))
	p.finish("a1")
	require.Equal(t, "a2", p.next(t))
	p.finish("a2")
	p.finish("c2")
}

// After stop nothing is submitted (errStopped) and no waiting task
// starts; run returns once the running ones finished.
func TestSchedulerStop(t *testing.T) {
	s, p := newSchedProbe(8)
	require.NoError(t, p.submit(s, "a1", SetKeys("a")))
	require.NoError(t, p.submit(s, "a2", SetKeys("a")))
	require.Equal(t, "a1", p.next(t))
	ran := make(chan struct{})
	go func() {
		s.Run()
		close(ran)
	}()
	s.Stop()
	s.Stop() // idempotent
	require.ErrorIs(t, p.submit(s, "b", SetKeys("b")), ErrStopped)
	select {
	case <-ran:
		t.Fatal("run returned while a1 was running")
	default:
	}
	p.finish("a1")
	<-ran
	p.quiet(t, s)
	require.Equal(t, []string{"a1"}, p.started, "a2 was dropped")
}

// Random keys and random finishing order: two tasks sharing a key never
// run together and each key's tasks start in submission order, but for an
// own election, which may start before the tasks of its set submitted
// before it that are neither global nor own. RMQ_SEED replays a seed.
func TestSchedulerRandomOrder(t *testing.T) {
	seed := uint64(rand.Int64())
	if v := os.Getenv("RMQ_SEED"); v != "" {
		var err error
		seed, err = strconv.ParseUint(v, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed=%d (replay: RMQ_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	for round := range 50 {
		randomScheduleRound(t, rng, round)
	}
}

func randomScheduleRound(t *testing.T, rng *rand.Rand, round int) {
	s, p := newSchedProbe(1024)
	order := map[schedKey][]string{} // submission order per key
	n := 20 + rng.IntN(40)
	all := make([]Keys, n)
	for i := range n {
		name := fmt.Sprintf("t%d", i)
		all[i] = randomKeys(rng)
		require.NoError(t, p.submit(s, name, all[i]))
		for _, k := range keysOrAll(all[i]) {
			order[k] = append(order[k], name)
		}
	}
	var running []string
	for done := 0; done < n; {
		for len(p.startCh) > 0 || len(running) == 0 {
			running = append(running, p.next(t))
		}
		i := rng.IntN(len(running))
		p.finish(running[i])
		running = append(running[:i], running[i+1:]...)
		done++
	}
	require.Empty(t, p.clash, "round %d: tasks sharing a key ran together", round)
	pos := map[string]int{}
	for i, name := range p.started {
		pos[name] = i
	}
	for k, names := range order {
		for i, a := range names {
			for _, b := range names[i+1:] {
				if !all[index(b)].own || all[index(a)].global || all[index(a)].own {
					require.Less(t, pos[a], pos[b], "round %d key %v: %v", round, k, names)
				}
			}
		}
	}
}

// index is the submission index of task "t<i>".
func index(name string) int {
	i, _ := strconv.Atoi(name[1:])
	return i
}

// randomKeys: mostly one or two of five sets, sometimes an own election
// (which may go ahead of its set's waiting tasks) or global.
func randomKeys(rng *rand.Rand) Keys {
	switch rng.IntN(10) {
	case 0:
		return GlobalKeys()
	case 1:
		return OwnElectionKeys(fmt.Sprint("s", rng.IntN(5)))
	case 2:
		return SetKeys(fmt.Sprint("s", rng.IntN(5)), fmt.Sprint("s", rng.IntN(5)))
	}
	return SetKeys(fmt.Sprint("s", rng.IntN(5)))
}

// keysOrAll lists a task's keys, a global task under every key.
func keysOrAll(k Keys) []schedKey {
	if !k.global {
		return k.keys
	}
	var out []schedKey
	for i := range 5 {
		out = append(out, schedKey{name: fmt.Sprint("s", i)})
	}
	return out
}

// SetKeys deduplicates; no name or more than maxTaskKeys is global.
func TestSetKeys(t *testing.T) {
	require.Equal(t, Keys{keys: []schedKey{{name: "a"}, {name: "b"}}}, SetKeys("a", "b", "a"))
	require.True(t, SetKeys().global)
	names := make([]string, maxTaskKeys+1)
	for i := range names {
		names[i] = fmt.Sprint(i)
	}
	require.True(t, SetKeys(names...).global)
	require.False(t, SetKeys(names[:maxTaskKeys]...).global)
}
