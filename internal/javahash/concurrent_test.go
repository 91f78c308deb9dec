package javahash

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// order puts identity hashes into a ConcurrentHashMap of table buckets
// and returns them in its iteration order.
func order(table int, hashes ...uint32) []uint32 {
	c := NewConcurrentHashMap(table)
	for _, h := range hashes {
		c.Put(h)
	}
	var out []uint32
	for _, i := range c.Order(nil) {
		out = append(out, hashes[i])
	}
	return out
}

// A bin of 64 buckets that held eight nodes becomes a TreeBin with the
// ninth; TreeBin.putTreeVal puts the tenth at the head of its node list.
func TestConcurrentHashMapTreeBinTakesNewNodesFirst(t *testing.T) {
	keys := []uint32{1, 65, 129, 193, 257, 321, 385, 449, 513}
	require.Equal(t, keys, order(64, keys...), "nine nodes: a TreeBin keeps the list's order")
	got := order(64, append(keys, 577)...)
	require.Equal(t, append([]uint32{577}, keys...), got)
	// Eight nodes stay a list: the ninth is appended.
	require.Equal(t, append(keys[:8:8], 577), order(64, append(keys[:8:8], 577)...))
}

// In a table below 64 buckets the ninth node of a bin makes treeifyBin
// call tryPresize(32), which transfers until sizeCtl reaches
// tableSizeFor(49) = 64: 16 -> 32 -> 64 -> 128 buckets. Worked by hand:
// the bin [1 17 33 ... 129] splits by bit 16 into lo [97 65 33 1 129] and
// hi [113 81 49 17] (the run [129] kept, the nodes before it prepended),
// then by bit 32 and 64 into [1 129] [17] [33] [49] [65] [81] [97] [113].
func TestConcurrentHashMapPresizesASmallTable(t *testing.T) {
	keys := []uint32{1, 17, 33, 49, 65, 81, 97, 113, 129}
	require.Equal(t, []uint32{1, 129, 17, 33, 49, 65, 81, 97, 113}, order(16, keys...))
	require.Equal(t, keys[:8], order(16, keys[:8]...), "eight nodes in one bin: no resize")
}

// A TreeBin splits in order (no reversal), and a half of six nodes or
// fewer becomes a list again, which appends.
func TestConcurrentHashMapTreeBinSplitsInOrder(t *testing.T) {
	// Table 64 (sizeCtl 48): nine nodes in bin 1 with alternating bit 64,
	// the TreeBin, then 39 fillers in other bins reach 48 and resize.
	bin := []uint32{1, 65, 129, 193, 257, 321, 385, 449, 513}
	keys := append([]uint32(nil), bin...)
	for b := uint32(2); len(keys) < 48; b++ {
		keys = append(keys, b)
	}
	got := order(64, keys...)
	var lo, hi []uint32
	for _, k := range got {
		switch {
		case k&127 == 1:
			lo = append(lo, k)
		case k&127 == 65:
			hi = append(hi, k)
		}
	}
	require.Equal(t, []uint32{1, 129, 257, 385, 513}, lo)
	require.Equal(t, []uint32{65, 193, 321, 449}, hi)
}

// The model agrees with refConcurrentHashMap, a direct transcription of
// the JDK's nodes, on random keys crowded into few bins (so that bins
// become trees, small tables presize and trees split). RMQ_SEED replays.
func TestConcurrentHashMapMatchesNodeModel(t *testing.T) {
	seed := rand.Uint64()
	if s := os.Getenv("RMQ_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (RMQ_SEED to replay)", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	for round := range 300 {
		n := 1 + r.IntN(400)
		spread := uint32(1 + r.IntN(64))
		table := 1 << (1 + r.IntN(7))
		seen := map[uint32]bool{}
		var keys []uint32
		for range 4 * n { // a small spread has fewer than n distinct hashes
			h := uint32(r.IntN(int(spread)))*uint32(1<<r.IntN(12)) + uint32(r.IntN(3))<<20
			if !seen[h] {
				seen[h] = true
				keys = append(keys, h)
			}
		}
		ref := newRefConcurrentHashMap(table)
		for _, k := range keys {
			ref.put(k)
		}
		require.Equal(t, ref.keys(), order(table, keys...), "round %d table %d keys %v", round, table, keys)
	}
}

// refConcurrentHashMap transcribes ConcurrentHashMap's single-threaded
// behaviour with Node objects, as the JDK writes it, for checking the
// index-based model.
type refConcurrentHashMap struct {
	tab   []*refBin
	count int
}

type refNode struct {
	hash uint32
	next *refNode
}

type refBin struct {
	first *refNode
	tree  bool
}

func newRefConcurrentHashMap(table int) *refConcurrentHashMap {
	return &refConcurrentHashMap{tab: make([]*refBin, table)}
}

func (m *refConcurrentHashMap) sizeCtl() int { n := len(m.tab); return n - n>>2 }

// put is putVal for a new key, then addCount.
func (m *refConcurrentHashMap) put(h uint32) {
	h = Spread(h)
	i := int(h) & (len(m.tab) - 1)
	f := m.tab[i]
	binCount := 0
	switch {
	case f == nil:
		m.tab[i] = &refBin{first: &refNode{hash: h}}
	case f.tree:
		f.first = &refNode{hash: h, next: f.first}
		binCount = 2
	default:
		binCount = 1
		e := f.first
		for ; e.next != nil; e = e.next {
			binCount++
		}
		e.next = &refNode{hash: h}
	}
	if binCount >= 8 {
		m.treeifyBin(i)
	}
	m.count++
	for m.count >= m.sizeCtl() && len(m.tab) < 1<<30 {
		m.transfer()
	}
}

func (m *refConcurrentHashMap) treeifyBin(i int) {
	if n := len(m.tab); n < 64 {
		m.tryPresize(n << 1)
		return
	}
	m.tab[i].tree = true
}

func (m *refConcurrentHashMap) tryPresize(size int) {
	c := TableSizeFor(size + size>>1 + 1)
	for c > m.sizeCtl() && len(m.tab) < 1<<30 {
		m.transfer()
	}
}

func (m *refConcurrentHashMap) transfer() {
	n := len(m.tab)
	next := make([]*refBin, 2*n)
	for i, f := range m.tab {
		if f == nil {
			continue
		}
		var ln, hn *refNode
		if f.tree {
			var lt, ht *refNode
			lc, hc := 0, 0
			for e := f.first; e != nil; e = e.next {
				p := &refNode{hash: e.hash}
				if e.hash&uint32(n) == 0 {
					if lt == nil {
						ln = p
					} else {
						lt.next = p
					}
					lt, lc = p, lc+1
				} else {
					if ht == nil {
						hn = p
					} else {
						ht.next = p
					}
					ht, hc = p, hc+1
				}
			}
			if ln != nil {
				next[i] = &refBin{first: ln, tree: lc > 6}
			}
			if hn != nil {
				next[i+n] = &refBin{first: hn, tree: hc > 6}
			}
			continue
		}
		runBit, lastRun := f.first.hash&uint32(n), f.first
		for p := f.first.next; p != nil; p = p.next {
			if b := p.hash & uint32(n); b != runBit {
				runBit, lastRun = b, p
			}
		}
		if runBit == 0 {
			ln = lastRun
		} else {
			hn = lastRun
		}
		for p := f.first; p != lastRun; p = p.next {
			if p.hash&uint32(n) == 0 {
				ln = &refNode{hash: p.hash, next: ln}
			} else {
				hn = &refNode{hash: p.hash, next: hn}
			}
		}
		if ln != nil {
			next[i] = &refBin{first: ln}
		}
		if hn != nil {
			next[i+n] = &refBin{first: hn}
		}
	}
	m.tab = next
}

// keys lists the hashes in iteration order (Spread undoes itself on 32
// bits, so it recovers the hash each node was put with).
func (m *refConcurrentHashMap) keys() []uint32 {
	var out []uint32
	for _, f := range m.tab {
		if f == nil {
			continue
		}
		for e := f.first; e != nil; e = e.next {
			out = append(out, Spread(e.hash))
		}
	}
	return out
}

// BenchmarkConcurrentHashMapOrder2000 is the work route adds to a
// registration that brings 2,000 new topics: hashing the body's keys,
// replaying their puts into a reused model and listing them.
func BenchmarkConcurrentHashMapOrder2000(b *testing.B) {
	keys := make([]string, 2000)
	for i := range keys {
		keys[i] = "new-topic-" + strconv.Itoa(i)
	}
	c := NewConcurrentHashMap(16)
	var order []int32
	b.ReportAllocs()
	for range b.N {
		c.Reset(16)
		for _, k := range keys {
			c.Put(StringHash(k))
		}
		order = c.Order(order[:0])
	}
}
