package route

import "github.com/rmqgo/nameserver/internal/monotime"

// expiryItem is one heap slot: the deadline is kept inline so that sifting
// compares without dereferencing live entries.
type expiryItem struct {
	deadline monotime.Mono
	e        *liveEntry
}

// expiryHeap is a min-heap of live entries by deadline. Each entry keeps
// its slot index (liveEntry.idx, -1 when not in the heap) for fix and
// remove. It is hand-rolled over a slice of small structs: no interface
// calls, and sifting moves items into a hole instead of swapping.
type expiryHeap []expiryItem

// push adds e with its current deadline.
func (h *expiryHeap) push(e *liveEntry) {
	*h = append(*h, expiryItem{deadline: e.deadline, e: e})
	h.up(len(*h) - 1)
}

// fix restores the order after e's deadline changed; e must be in the heap.
func (h expiryHeap) fix(e *liveEntry) {
	i := e.idx
	h[i].deadline = e.deadline
	if !h.down(i) {
		h.up(i)
	}
}

// remove takes the entry at slot i out of the heap and returns it.
func (h *expiryHeap) remove(i int) *liveEntry {
	old := *h
	last := len(old) - 1
	e := old[i].e
	if i != last {
		old[i] = old[last]
		old[i].e.idx = i
	}
	old[last] = expiryItem{}
	*h = old[:last]
	if i != last && !h.down(i) {
		h.up(i)
	}
	e.idx = -1
	return e
}

// popBefore removes and returns the earliest entry if its deadline is
// before now, else nil.
func (h *expiryHeap) popBefore(now monotime.Mono) *liveEntry {
	if len(*h) == 0 || (*h)[0].deadline >= now {
		return nil
	}
	return h.remove(0)
}

// countBefore counts the items with a deadline before now, visiting only
// those and their direct children (the heap order prunes the rest).
func (h expiryHeap) countBefore(now monotime.Mono) int {
	return h.countFrom(0, now)
}

func (h expiryHeap) countFrom(i int, now monotime.Mono) int {
	if i >= len(h) || h[i].deadline >= now {
		return 0
	}
	return 1 + h.countFrom(2*i+1, now) + h.countFrom(2*i+2, now)
}

// up moves the item at i toward the root while it is earlier than its parent.
func (h expiryHeap) up(i int) {
	it := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if h[p].deadline <= it.deadline {
			break
		}
		h[i] = h[p]
		h[i].e.idx = i
		i = p
	}
	h[i] = it
	it.e.idx = i
}

// down moves the item at i toward the leaves while a child is earlier; it
// reports whether the item moved.
func (h expiryHeap) down(i int) bool {
	it, start, n := h[i], i, len(h)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h[r].deadline < h[c].deadline {
			c = r
		}
		if it.deadline <= h[c].deadline {
			break
		}
		h[i] = h[c]
		h[i].e.idx = i
		i = c
	}
	h[i] = it
	it.e.idx = i
	return i > start
}
