//go:build embedded_controller

package sched

import (
	"errors"
	"slices"
	"sync"
)

// Scheduler orders the leader's work per broker set (docs/controller.md
// section 5.2). Every leader-gated request and every triggered election is
// a task with keys (Keys, schedkeys.go): the broker sets it reads or
// changes, or global for a task that may touch anything. A task waits for
// every earlier live task that shares a key with it (and for the last
// global task; a global task waits for every live task but the reads),
// then runs on its own goroutine. A task that appended an entry holds its
// keys until that entry's fate is known (applied, or lost with the
// leadership), even after its caller's deadline passed: no command is
// built on a state that lacks an entry of its set still in flight. Tasks
// of other sets run meanwhile, so their entries share Raft's batches and
// fsyncs.
//
// The controller's own election of a set (Keys.own) waits only for
// the set's task that has started (the one whose entry may be in flight)
// and for the own tasks before it: it goes ahead of the set's tasks still
// waiting, which then wait for it (linkOwn). However many requests a
// stranger queues on a set, its failover waits for one entry.
//
// The tasks form a DAG under one mutex: a task waits only for tasks
// submitted before it, except that a waiting task may be made to wait for
// a later own election, which waits only for started tasks and own
// elections: there is no cycle. The
// number of live tasks (waiting or running) is bounded: a full scheduler
// answers errFull, and so does one whose request would take the
// live tasks' weight past budget. The controller's own
// elections (one loop per stored set) have a bound of their
// own, maxOwn, so that a stranger who fills the scheduler cannot
// hold a failover back.
type Scheduler struct {
	mu      sync.Mutex
	size    int                  // bound of live tasks
	maxOwn  int                  // bound of live own elections
	live    map[*task]struct{}   // submitted and not finished
	counted int                  // live tasks held to size (all but own elections)
	owned   int                  // live own elections (held to maxOwn)
	budget  int64                // bound of the live tasks' weight
	bytes   int64                // weight of the live tasks
	chains  map[schedKey][]*task // live tasks per key in the order they run; the last is the key's tail
	global  *task                // latest live global task
	stopped bool                 // no task starts any more
	done    chan struct{}        // closed by stop
	running sync.WaitGroup       // started tasks
	onStart func(t *task)        // test hook: called under mu when t starts
}

// task is one scheduled function and its place in the DAG.
type task struct {
	keys    []schedKey
	global  bool
	own     bool
	read    bool  // waits for its sets' tails and is no tail itself (Keys.read)
	started bool  // handed to its goroutine (under mu)
	weight  int64 // Keys.Weight (0 for own elections)
	fn      func()
	waiting int     // unfinished tasks it waits for
	next    []*task // tasks waiting for it
}

// Errors of Submit.
var (
	ErrStopped = errors.New("scheduler stopped")
	ErrFull    = errors.New("scheduler full")
)

// New returns a scheduler of at most size live request tasks
// weighing budget bytes together, and of at most maxOwn own elections.
func New(size, maxOwn int, budget int64) *Scheduler {
	return &Scheduler{size: size, maxOwn: maxOwn, budget: budget, live: map[*task]struct{}{}, chains: map[schedKey][]*task{}, done: make(chan struct{})}
}

// Run blocks until stop, then until every started task has finished (so
// that Shutdown closes the Raft node only after them).
func (s *Scheduler) Run() {
	<-s.done
	s.running.Wait()
}

// Submit enqueues fn with keys without blocking: errStopped once
// stopped, errFull when the bound of live tasks is reached or keys'
// weight does not fit the budget (an own election is held to neither).
func (s *Scheduler) Submit(keys Keys, fn func()) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return ErrStopped
	}
	if !s.admits(keys) {
		return ErrFull
	}
	t := &task{keys: keys.keys, global: keys.global, own: keys.own, read: keys.read, fn: fn} // a read keeps no names
	if !t.own {
		t.weight = keys.Weight
	}
	s.link(t, keys.Names)
	s.live[t] = struct{}{}
	s.count(t, 1)
	if t.waiting == 0 {
		s.start(t)
	}
	return nil
}

// admits reports whether a task with keys fits its bounds (under mu): an
// own election the maxOwnElections live ones; any other task the size
// live ones and the budget of bytes, which a task alone may pass (no
// request is refused forever; the bound is max(budget, one request)).
func (s *Scheduler) admits(keys Keys) bool {
	if keys.own {
		return s.owned < s.maxOwn
	}
	return s.counted < s.size && (s.bytes == 0 || s.bytes+keys.Weight <= s.budget)
}

// count adds d to the live tasks of t's bound and d × its weight to the
// live bytes (under mu).
func (s *Scheduler) count(t *task, d int) {
	if t.own {
		s.owned += d
	} else {
		s.counted += d
	}
	s.bytes += int64(d) * t.weight
}

// link makes t wait for the live tasks it must follow and records it as
// the tail of its keys (under mu). Every live task but a read is the last
// global task, a tail, or an ancestor of one of them (a later task sharing
// one of its keys, or a later global task, waits for it), so a global task
// that waits for those waits for every live task but the reads, with one
// edge per key. A read waits like a keyed task but records nothing: it
// changes no set, so nothing needs to follow it.
func (s *Scheduler) link(t *task, readNames []string) {
	if s.global != nil {
		s.after(t, s.global)
	}
	if t.read {
		s.readAfter(t, readNames)
		return
	}
	if t.global {
		for _, c := range s.chains {
			s.after(t, c[len(c)-1])
		}
		s.global = t
		return
	}
	if t.own && s.global == nil && len(t.keys) == 1 {
		s.linkOwn(t)
		return
	}
	for _, k := range t.keys {
		if c := s.chains[k]; len(c) > 0 {
			s.after(t, c[len(c)-1])
		}
		s.chains[k] = append(s.chains[k], t)
	}
}

// linkOwn places own task t in its key's chain after the started task and
// the own tasks that follow it, and before the first task still waiting,
// which then waits for t (under mu). t waits for its predecessor only, a
// started task or an own task (which waits for the same), never for a
// task that is waiting: no cycle. Every later task of the key waits for
// the one t goes ahead of, so for t too: the chain's order is still the
// order its tasks run and finish in.
func (s *Scheduler) linkOwn(t *task) {
	k := t.keys[0]
	c := s.chains[k]
	i := 0
	for i < len(c) && (c[i].started || c[i].own) {
		i++
	}
	if i > 0 {
		s.after(t, c[i-1])
	}
	if i < len(c) {
		s.after(c[i], t)
	}
	s.chains[k] = slices.Insert(c, i, t)
}

// readAfter makes read task t wait for the tails of the sets in names
// (sorted), once each, without becoming one (under mu): no later task
// waits for a read. It looks up the smaller side, the names in the tails
// or the tails in the names, so a read of millions of names holds the
// lock no longer than the live tasks' keys take.
func (s *Scheduler) readAfter(t *task, names []string) {
	var seen map[*task]bool
	visit := func(p *task) {
		if p == nil || seen[p] {
			return
		}
		if seen == nil {
			seen = map[*task]bool{}
		}
		seen[p] = true
		s.after(t, p)
	}
	if len(names) <= len(s.chains) {
		for _, n := range names {
			if c := s.chains[schedKey{name: n}]; len(c) > 0 {
				visit(c[len(c)-1])
			}
		}
		return
	}
	for k, c := range s.chains {
		if _, found := slices.BinarySearch(names, k.name); found {
			visit(c[len(c)-1])
		}
	}
}

// after makes t wait for p, once.
func (s *Scheduler) after(t, p *task) {
	if n := len(p.next); n > 0 && p.next[n-1] == t {
		return // t's edges are added together: a repeat is the last one
	}
	p.next = append(p.next, t)
	t.waiting++
}

// start runs t on its own goroutine (under mu).
func (s *Scheduler) start(t *task) {
	if s.onStart != nil {
		s.onStart(t)
	}
	t.started = true
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		defer s.finish(t)
		t.fn()
	}()
}

// finish releases t's keys and starts the tasks left with nothing to wait
// for; after stop none starts.
func (s *Scheduler) finish(t *task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, t)
	s.count(t, -1)
	for _, k := range t.keys {
		s.unchain(k, t)
	}
	if s.global == t {
		s.global = nil
	}
	for _, n := range t.next {
		if n.waiting--; n.waiting == 0 && !s.stopped {
			s.start(n)
		}
	}
	t.next = nil
}

// unchain removes finished t from k's chain, where it is first (under mu).
func (s *Scheduler) unchain(k schedKey, t *task) {
	c := s.chains[k]
	if i := slices.Index(c, t); i >= 0 {
		c = slices.Delete(c, i, i+1)
	}
	if len(c) == 0 {
		delete(s.chains, k)
		return
	}
	s.chains[k] = c
}

// Stop starts no task any more: the waiting ones are dropped (their
// callers see done), the running ones finish.
func (s *Scheduler) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopped {
		s.stopped = true
		close(s.done)
	}
}

// Done is closed by Stop.
func (s *Scheduler) Done() <-chan struct{} { return s.done }

// LiveOn reports whether a task that changes set name (or a global task)
// is live: an entry of name may be in flight.
func (s *Scheduler) LiveOn(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.global != nil || len(s.chains[schedKey{name: name}]) > 0
}

// Pending is the number of live tasks (waiting or running).
func (s *Scheduler) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.live)
}
