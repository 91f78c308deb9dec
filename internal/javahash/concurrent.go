package javahash

import "slices"

// Constants of java.util.concurrent.ConcurrentHashMap that decide where a
// key sits in the map's iteration order.
const (
	treeifyThreshold   = 8  // TREEIFY_THRESHOLD
	untreeifyThreshold = 6  // UNTREEIFY_THRESHOLD
	minTreeifyCapacity = 64 // MIN_TREEIFY_CAPACITY
)

// ConcurrentHashMap replays single puts of distinct keys into a Java
// ConcurrentHashMap, keeping for every bin its nodes in the order the
// map's iterator (Traverser) visits them. Keys are numbered by the order
// they were put. It follows putVal, addCount, treeifyBin, tryPresize and
// transfer of the JDK (8 to 21, which agree here):
//
//   - a list bin gets the new node at its tail; a TreeBin gets it at the
//     head of its node list (TreeBin.putTreeVal sets first to the new node);
//   - a list bin that held eight or more nodes before the put becomes a
//     TreeBin (order kept), unless the table is below 64 buckets: then
//     tryPresize(2n) doubles the table until its sizeCtl reaches
//     tableSizeFor(3n+1), that is to eight times n;
//   - the table doubles while the count has reached sizeCtl (three quarters);
//   - transfer keeps the trailing run of a list bin's nodes that go to the
//     same half and prepends the nodes before it one by one (so they come
//     out reversed); a TreeBin's nodes keep their order, and a half of
//     six nodes or fewer becomes a list again.
type ConcurrentHashMap struct {
	head   []int32  // first node of each bin, -1 when empty
	tree   []bool   // bin is a TreeBin
	next   []int32  // next node by key number, -1 at a bin's end
	spread []uint32 // Spread(hash) by key number
	count  int
	spare  []int32 // a retired head table, reused by transfer
	spareT []bool  // a retired tree table, reused by transfer
}

// NewConcurrentHashMap returns an empty map whose table, once created,
// has table buckets (a power of two: 16 for new ConcurrentHashMap<>()).
func NewConcurrentHashMap(table int) *ConcurrentHashMap {
	c := &ConcurrentHashMap{}
	c.Reset(table)
	return c
}

// Reset empties c for a table of the given size, keeping its storage.
func (c *ConcurrentHashMap) Reset(table int) {
	c.head = fill(c.head[:0], table, -1)
	c.tree = append(c.tree[:0], make([]bool, table)...)
	c.next, c.spread, c.count = c.next[:0], c.spread[:0], 0
}

// fill appends n copies of v to s.
func fill(s []int32, n int, v int32) []int32 {
	s = slices.Grow(s, n)[:len(s)+n]
	for i := len(s) - n; i < len(s); i++ {
		s[i] = v
	}
	return s
}

// Put adds a key absent from the map, given its hashCode, and returns
// its key number.
func (c *ConcurrentHashMap) Put(hash uint32) int32 {
	i := int32(len(c.next))
	h := Spread(hash)
	c.next = append(c.next, -1)
	c.spread = append(c.spread, h)
	b := h & uint32(len(c.head)-1)
	switch p := c.head[b]; {
	case p < 0:
		c.head[b] = i
	case c.tree[b]:
		c.next[i], c.head[b] = p, i
	default:
		before := 1
		for ; c.next[p] >= 0; p = c.next[p] {
			before++
		}
		c.next[p] = i
		if before >= treeifyThreshold {
			c.treeifyBin(b)
		}
	}
	c.count++
	for n := len(c.head); n < maxTable && c.count >= n-n>>2; n = len(c.head) {
		c.transfer()
	}
	return i
}

// treeifyBin turns bin b into a TreeBin, or grows a small table instead.
func (c *ConcurrentHashMap) treeifyBin(b uint32) {
	n := len(c.head)
	if n >= minTreeifyCapacity {
		c.tree[b] = true
		return
	}
	size := n << 1
	want := TableSizeFor(size + size>>1 + 1)
	for n = len(c.head); n < maxTable && want > n-n>>2; n = len(c.head) {
		c.transfer()
	}
}

// Order appends the key numbers in iteration order to dst.
func (c *ConcurrentHashMap) Order(dst []int32) []int32 {
	for _, p := range c.head {
		for ; p >= 0; p = c.next[p] {
			dst = append(dst, p)
		}
	}
	return dst
}

// Len returns the number of keys.
func (c *ConcurrentHashMap) Len() int { return c.count }

// transfer doubles the table.
func (c *ConcurrentHashMap) transfer() {
	n := len(c.head)
	head := fill(c.spare[:0], 2*n, -1)
	tree := append(c.spareT[:0], make([]bool, 2*n)...)
	for b, p := range c.head {
		if p < 0 {
			continue
		}
		if c.tree[b] {
			c.splitTree(p, uint32(n), head[b:], head[b+n:], tree[b:], tree[b+n:])
		} else {
			head[b], head[b+n] = c.splitList(p, uint32(n))
		}
	}
	c.spare, c.head, c.spareT, c.tree = c.head, head, c.tree, tree
}

// splitList splits a list bin by the hash bit n into its low and high
// halves as ConcurrentHashMap.transfer does.
func (c *ConcurrentHashMap) splitList(first int32, n uint32) (lo, hi int32) {
	lastRun, runBit := first, c.spread[first]&n
	for p := c.next[first]; p >= 0; p = c.next[p] {
		if bit := c.spread[p] & n; bit != runBit {
			lastRun, runBit = p, bit
		}
	}
	lo, hi = -1, -1
	if runBit == 0 {
		lo = lastRun
	} else {
		hi = lastRun
	}
	for p := first; p != lastRun; {
		nx := c.next[p]
		if c.spread[p]&n == 0 {
			c.next[p], lo = lo, p
		} else {
			c.next[p], hi = hi, p
		}
		p = nx
	}
	return lo, hi
}

// splitTree splits a TreeBin by the hash bit n, keeping its node order;
// a half keeps the tree form only with more than six nodes.
func (c *ConcurrentHashMap) splitTree(first int32, n uint32, lo, hi []int32, loTree, hiTree []bool) {
	var loTail, hiTail int32 = -1, -1
	var lc, hc int
	for p := first; p >= 0; {
		nx := c.next[p]
		c.next[p] = -1
		if c.spread[p]&n == 0 {
			lo[0], loTail, lc = link(c.next, lo[0], loTail, p), p, lc+1
		} else {
			hi[0], hiTail, hc = link(c.next, hi[0], hiTail, p), p, hc+1
		}
		p = nx
	}
	loTree[0], hiTree[0] = lc > untreeifyThreshold, hc > untreeifyThreshold
}

// link appends p to the list that starts at head and ends at tail, and
// returns the list's head.
func link(next []int32, head, tail, p int32) int32 {
	if tail < 0 {
		return p
	}
	next[tail] = p
	return head
}
