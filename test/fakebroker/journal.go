package fakebroker

import (
	"context"
	"slices"
	"sync"
)

// journal is an append-only record that readers can wait on.
type journal[T any] struct {
	mu      sync.Mutex
	items   []T
	changed chan struct{} // closed and replaced on every add
}

// add appends items and wakes every waiter.
func (j *journal[T]) add(items ...T) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.items = append(j.items, items...)
	if j.changed != nil {
		close(j.changed)
		j.changed = nil
	}
}

// snapshot returns a copy of the items recorded so far.
func (j *journal[T]) snapshot() []T {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.items)
}

// find returns the first item matching pred, and a channel closed on the
// next add when there is none yet.
func (j *journal[T]) find(pred func(T) bool) (T, bool, <-chan struct{}) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, it := range j.items {
		if pred(it) {
			return it, true, nil
		}
	}
	if j.changed == nil {
		j.changed = make(chan struct{})
	}
	var zero T
	return zero, false, j.changed
}

// wait returns the first item matching pred, waiting for it until ctx ends.
func (j *journal[T]) wait(ctx context.Context, pred func(T) bool) (T, error) {
	for {
		it, ok, changed := j.find(pred)
		if ok {
			return it, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
	}
}

// count returns how many items match pred.
func (j *journal[T]) count(pred func(T) bool) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for _, it := range j.items {
		if pred(it) {
			n++
		}
	}
	return n
}
