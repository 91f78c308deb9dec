package connlimit

import (
	"sync"
	"sync/atomic"
)

// SideShare is the part of RLIMIT_NOFILE the side listeners may hold
// together: 1/SideShare of it.
const SideShare = 4

// unlimitedSide is the side budget when RLIMIT_NOFILE cannot be read or is
// infinite.
const unlimitedSide = 1 << 20

// Budget counts file descriptors shared by several listeners; the zero
// value admits nothing, use NewBudget.
type Budget struct {
	max  int64
	used atomic.Int64
}

// NewBudget returns a budget of max descriptors.
func NewBudget(max int) *Budget { return &Budget{max: int64(max)} }

// Max is the size of the budget.
func (b *Budget) Max() int { return int(b.max) }

// InUse is how many descriptors are taken.
func (b *Budget) InUse() int { return int(b.used.Load()) }

// TryAcquire takes one descriptor if one is left.
func (b *Budget) TryAcquire() bool {
	if b.used.Add(1) > b.max {
		b.used.Add(-1)
		return false
	}
	return true
}

// Release gives back one descriptor taken by TryAcquire.
func (b *Budget) Release() { b.used.Add(-1) }

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
