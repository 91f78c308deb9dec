package javahash

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func identity(v uint32) uint32 { return v }

// Table of 4, sizeCtl 3: the third put resizes to 8. Bin 1 holds 1, 9, 5;
// bit 4 splits it into [1 9] and [5]. The run at the tail is [5] (high),
// so the low nodes 1 and 9 are prepended one by one: 9, 1.
func TestInsertionOrderConcurrentTransferReverses(t *testing.T) {
	k := Kind{Initial: 4, Concurrent: true}
	require.Equal(t, []uint32{9, 1, 5}, InsertionOrder([]uint32{1, 9, 5}, k, identity))
	// A HashMap keeps insertion order in the bin through the resize.
	require.Equal(t, []uint32{1, 9, 5}, InsertionOrder([]uint32{1, 9, 5}, Kind{Initial: 2}, identity))
	// 1, 5, 9: the tail run is [9] (low); 5 goes high and 1 is prepended
	// to the low half: [1 9], [5].
	require.Equal(t, []uint32{1, 9, 5}, InsertionOrder([]uint32{1, 5, 9}, k, identity))
}

// Without a shared bucket the order is the bucket order, as Sort gives it,
// for every kind.
func TestInsertionOrderMatchesSortWithoutCollisions(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	for _, k := range []Kind{HashMapDefault, ConcurrentDefault, HashMapCopy, BrokerAddrTable} {
		for n := range 40 {
			keys := distinctBuckets(r, n, k.Buckets(n))
			want := slices.Clone(keys)
			Sort(want, k, identity, func(a, b uint32) int { return int(a) - int(b) })
			require.Equal(t, want, InsertionOrder(keys, k, identity), "kind %+v n %d", k, n)
		}
	}
}

// distinctBuckets returns n keys below buckets, one per bucket, shuffled.
func distinctBuckets(r *rand.Rand, n, buckets int) []uint32 {
	perm := r.Perm(buckets)[:n]
	out := make([]uint32, n)
	for i, p := range perm {
		out[i] = uint32(p)
	}
	return out
}

func TestInsertionOrderKeepsEveryKey(t *testing.T) {
	keys := make([]string, 500)
	for i := range keys {
		keys[i] = fmt.Sprintf("topic-%d", i)
	}
	got := InsertionOrder(keys, ConcurrentDefault, StringHash)
	require.ElementsMatch(t, keys, got)
}
