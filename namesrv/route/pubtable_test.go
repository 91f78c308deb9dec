package route

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// applyBatch withdraws removed and publishes added (those not removed),
// as the coordinator does row by row.
func applyBatch(p *pubIndex, added, removed []*topicEntry) {
	for _, e := range removed {
		p.withdraw(e)
	}
	for _, e := range added {
		if !e.removed {
			p.add(e)
		}
	}
}

// TestPublishedMatchesModel applies random batches of publications and
// withdrawals (through growth, rebuilds and tombstone reuse) and checks
// every name against a map after each batch.
func TestPublishedMatchesModel(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("RMQ_SEED"), 10, 64); err == nil {
		seed = v // replay
	}
	t.Logf("seed %d (RMQ_SEED=%d replays it)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	p := &pubIndex{seed: maphash.MakeSeed()}
	names := topicNames("t", 5000)
	model := map[string]*topicEntry{}
	for range 200 {
		var added, removed []*topicEntry
		for range rng.IntN(400) {
			name := names[rng.IntN(len(names))]
			if e := model[name]; e != nil && !e.removed {
				e.removed = true
				removed = append(removed, e)
				delete(model, name)
			} else if e == nil {
				e = &topicEntry{name: name}
				model[name] = e
				added = append(added, e)
			}
		}
		applyBatch(p, added, removed)
		require.Equal(t, len(model), p.live, "seed %d", seed)
		for _, n := range names {
			require.Same(t, model[n], p.get(n), "seed %d topic %s", seed, n)
		}
	}
	require.Nil(t, p.get(tombstone.name), "the tombstone is never found")
}

// TestPublishedReadersDuringRebuilds: lookups of topics that stay
// published always find them while other topics come and go and the table
// is rebuilt (run with -race).
func TestPublishedReadersDuringRebuilds(t *testing.T) {
	p := &pubIndex{seed: maphash.MakeSeed()}
	stable := make([]*topicEntry, 100)
	for i := range stable {
		stable[i] = &topicEntry{name: fmt.Sprintf("stable-%d", i)}
	}
	applyBatch(p, stable, nil)
	var stop atomic.Bool
	var wg sync.WaitGroup
	misses := make([]int, 2)
	for r := range misses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				e := stable[i%len(stable)]
				if p.get(e.name) != e {
					misses[r]++
				}
			}
		}()
	}
	for round := range 20 {
		batch := make([]*topicEntry, 2000)
		for i := range batch {
			batch[i] = &topicEntry{name: fmt.Sprintf("churn-%d-%d", round, i)}
		}
		applyBatch(p, batch, nil)
		for _, e := range batch {
			e.removed = true
		}
		applyBatch(p, nil, batch)
	}
	stop.Store(true)
	wg.Wait()
	require.Equal(t, []int{0, 0}, misses)
	require.Equal(t, len(stable), p.live)
}
