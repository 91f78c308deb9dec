package route

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/monotime"
)

// checkHeap verifies the heap order, the inline deadlines and every
// entry's slot index.
func checkHeap(t *testing.T, h expiryHeap) {
	t.Helper()
	for i, it := range h {
		require.Equal(t, i, it.e.idx, "slot index of item %d", i)
		require.Equal(t, it.e.deadline, it.deadline, "inline deadline of item %d", i)
		if i > 0 {
			require.LessOrEqual(t, h[(i-1)/2].deadline, it.deadline, "heap order at %d", i)
		}
	}
}

func TestExpiryHeapAgainstSortedModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h expiryHeap
	var in []*liveEntry
	for step := range 5000 {
		switch op := rng.IntN(10); {
		case op < 4 || len(in) == 0:
			e := &liveEntry{idx: -1, deadline: monotime.Mono(rng.Int64N(1000))}
			h.push(e)
			in = append(in, e)
		case op < 7:
			e := in[rng.IntN(len(in))]
			e.deadline = monotime.Mono(rng.Int64N(1000))
			h.fix(e)
		case op < 8:
			k := rng.IntN(len(in))
			require.Same(t, in[k], h.remove(in[k].idx))
			require.Equal(t, -1, in[k].idx)
			in = slices.Delete(in, k, k+1)
		default:
			now := monotime.Mono(rng.Int64N(1000))
			want := 0
			for _, e := range in {
				if e.deadline < now {
					want++
				}
			}
			require.Equal(t, want, h.countBefore(now))
			for e := h.popBefore(now); e != nil; e = h.popBefore(now) {
				require.Less(t, e.deadline, now)
				require.Equal(t, -1, e.idx)
				in = slices.DeleteFunc(in, func(x *liveEntry) bool { return x == e })
			}
			for _, e := range in {
				require.GreaterOrEqual(t, e.deadline, now, "step %d: an expired entry was left", step)
			}
		}
		require.Len(t, h, len(in))
		if step%97 == 0 {
			checkHeap(t, h)
		}
	}
	checkHeap(t, h)
}

// BenchmarkPopExpired1000of10000 times liveTable.popExpired alone: 1,000
// of 10,000 entries expired. Putting them back is not timed.
func BenchmarkPopExpired1000of10000(b *testing.B) {
	var l liveTable
	l.init()
	var entries []*liveEntry
	for i := range 10_000 {
		e := &liveEntry{idx: -1, timeout: 120 * time.Second}
		if i%10 == 0 {
			e.timeout = time.Second
		}
		l.touch(e, monotime.Mono(i))
		entries = append(entries, e)
	}
	now := monotime.Mono(2 * time.Second)
	b.ReportAllocs()
	for b.Loop() {
		var visits uint64
		var swept []string
		if xs := l.popExpired(now, &visits, &swept); len(xs) != 1000 {
			b.Fatalf("expired %d", len(xs))
		}
		b.StopTimer()
		for i := 0; i < len(entries); i += 10 {
			l.touch(entries[i], monotime.Mono(i))
		}
		b.StartTimer()
	}
}
