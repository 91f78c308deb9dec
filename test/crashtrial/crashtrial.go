// Package crashtrial runs kill -9 trials against real processes: writers
// record every write they send and every one acknowledged, the process is
// killed at a random point, restarted, and every acknowledged write must
// be read back.
package crashtrial

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Environment switches of the trials.
const (
	// EnvLong set to 1 is the project's long mode (make test-long).
	EnvLong = "RMQ_TEST_LONG"
	// EnvTrials overrides the number of trials.
	EnvTrials = "RMQ_CRASH_TRIALS"
	// EnvSeed replays a seed printed by an earlier run.
	EnvSeed = "RMQ_CRASH_SEED"
)

// Trials is the number of trials a test runs: EnvTrials when set, else 100
// in long mode and 3 otherwise.
func Trials() int {
	if n, err := strconv.Atoi(os.Getenv(EnvTrials)); err == nil && n > 0 {
		return n
	}
	if os.Getenv(EnvLong) == "1" {
		return 100
	}
	return 3
}

// Rand returns the trials' random source, seeded from EnvSeed or the
// clock; the seed is logged so that a failure can be replayed.
func Rand(t testing.TB) *rand.Rand {
	seed, err := strconv.ParseUint(os.Getenv(EnvSeed), 10, 64)
	if err != nil {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed=%d (replay: %s=%d)", seed, EnvSeed, seed)
	return rand.New(rand.NewPCG(seed, 0))
}

// Ledger is what the writers of one trial sent and what was acknowledged.
type Ledger struct {
	mu       sync.Mutex
	sent     map[string]string // key -> value
	acked    map[string]bool
	first    chan struct{}
	firstSet bool
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger {
	return &Ledger{sent: map[string]string{}, acked: map[string]bool{}, first: make(chan struct{})}
}

// Sent records a write about to be sent.
func (l *Ledger) Sent(key, value string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent[key] = value
}

// Acked records the acknowledgement of the write of key.
func (l *Ledger) Acked(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.acked[key] = true
	if !l.firstSet {
		l.firstSet = true
		close(l.first)
	}
}

// FirstAck is closed once a write was acknowledged.
func (l *Ledger) FirstAck() <-chan struct{} { return l.first }

// Counts returns how many writes were sent and acknowledged.
func (l *Ledger) Counts() (sent, acked int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.sent), len(l.acked)
}

// Check reads every sent key back: an acknowledged write that is missing
// or holds another value, and an unacknowledged one present with another
// value, is a violation. It stops at the first read error.
func (l *Ledger) Check(read func(key string) (value string, found bool, err error)) ([]string, error) {
	l.mu.Lock()
	keys := make([]string, 0, len(l.sent))
	for k := range l.sent {
		keys = append(keys, k)
	}
	l.mu.Unlock()
	sort.Strings(keys)
	var bad []string
	for _, k := range keys {
		got, found, err := read(k)
		if err != nil {
			return bad, fmt.Errorf("read %s: %w", k, err)
		}
		l.mu.Lock()
		want, acked := l.sent[k], l.acked[k]
		l.mu.Unlock()
		switch {
		case acked && !found:
			bad = append(bad, k+": acknowledged, missing after restart")
		case found && got != want:
			bad = append(bad, fmt.Sprintf("%s: holds %q, wrote %q", k, got, want))
		}
	}
	return bad, nil
}

// Run starts n writers, each calling write(w, i) for i = 0, 1, ... until
// it returns false, and returns a func that waits for all of them.
func Run(n int, write func(w, i int) bool) (wait func()) {
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() {
			for i := 0; write(w, i); i++ {
			}
		})
	}
	return wg.Wait
}

// KillPoint waits for the first acknowledgement (at most limit), then a
// random delay below maxDelay, and returns the delay it chose.
func KillPoint(t testing.TB, rng *rand.Rand, l *Ledger, maxDelay, limit time.Duration) time.Duration {
	t.Helper()
	select {
	case <-l.FirstAck():
	case <-time.After(limit):
		t.Fatalf("no write acknowledged within %v", limit)
	}
	d := time.Duration(rng.Int64N(int64(maxDelay)))
	time.Sleep(d) // the random kill point (a stimulus, not an assertion)
	return d
}

// Tally sums the trials of a test.
type Tally struct {
	ledgers    []*Ledger
	Violations int
}

// Add keeps l, to be checked again by CheckAll.
func (ta *Tally) Add(l *Ledger) { ta.ledgers = append(ta.ledgers, l) }

// Check reads l back with read and fails the test on each violation (the
// first ten are printed), prefixed with what.
func (ta *Tally) Check(t testing.TB, what string, l *Ledger, read func(string) (string, bool, error)) {
	t.Helper()
	bad, err := l.Check(read)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	ta.Violations += len(bad)
	for _, b := range bad[:min(len(bad), 10)] {
		t.Errorf("%s: %s", what, b)
	}
}

// CheckAll checks every trial's ledger again (writes of earlier trials
// must survive the later kills) and logs the totals.
func (ta *Tally) CheckAll(t testing.TB, name string, read func(string) (string, bool, error)) {
	t.Helper()
	var sent, acked int
	for i, l := range ta.ledgers {
		ta.Check(t, fmt.Sprintf("trial %d, after the last restart", i), l, read)
		s, a := l.Counts()
		sent, acked = sent+s, acked+a
	}
	t.Logf("%s kill -9 trials: %d, writes sent %d, acknowledged %d, violations %d",
		name, len(ta.ledgers), sent, acked, ta.Violations)
}
