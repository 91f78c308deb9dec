package connlimit

import (
	"sync"
)

// SideShare is the part of RLIMIT_NOFILE the side listeners may hold
// together: 1/SideShare of it.
const SideShare = 4

// unlimitedSide is the side budget when RLIMIT_NOFILE cannot be read or is
// infinite.
const unlimitedSide = 1 << 20

// Budget counts file descriptors shared by several listeners; the zero
// value admits nothing, use NewBudget. Its lock also guards the
// admission state of every Listener sharing it, so that a connection
// over the budget can take the place of another listener's oldest
// unproven connection.
type Budget struct {
	max       int
	mu        sync.Mutex
	used      int
	seq       uint64
	listeners []*Listener
}

// NewBudget returns a budget of max descriptors.
func NewBudget(max int) *Budget { return &Budget{max: max} }

// Max is the size of the budget.
func (b *Budget) Max() int { return b.max }

// InUse is how many descriptors are taken.
func (b *Budget) InUse() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Listeners is how many open listeners share the budget.
func (b *Budget) Listeners() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.listeners)
}

// join registers l for evictions across listeners.
func (b *Budget) join(l *Listener) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.listeners = append(b.listeners, l)
}

// leave unregisters l (closed).
func (b *Budget) leave(l *Listener) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, x := range b.listeners {
		if x == l {
			b.listeners = append(b.listeners[:i], b.listeners[i+1:]...)
			return
		}
	}
}

// oldestUnproven is the oldest unproven connection of all the budget's
// listeners; nil when every connection is proven. Called with mu held.
func (b *Budget) oldestUnproven() *conn {
	var oldest *conn
	for _, l := range b.listeners {
		if c := l.oldestUnproven(); c != nil && (oldest == nil || c.seq < oldest.seq) {
			oldest = c
		}
	}
	return oldest
}

var side = sync.OnceValue(func() *Budget {
	n, ok := NoFileLimit()
	if !ok || n/SideShare > unlimitedSide {
		return NewBudget(unlimitedSide)
	}
	return NewBudget(int(n / SideShare))
})

// Side is the process's side budget: RLIMIT_NOFILE/SideShare, read at its
// first use.
func Side() *Budget { return side() }

// RemotingReserve is what RLIMIT_NOFILE leaves outside the side budget:
// the remoting listener's, the dials', the stores' and the runtime's.
// False when the limit cannot be read or is infinite.
func RemotingReserve() (int, bool) {
	n, ok := NoFileLimit()
	if !ok || n/SideShare > unlimitedSide {
		return 0, false
	}
	return int(n) - Side().Max(), true
}
