//go:build embedded_controller

package sched

import "slices"

// Keys of the scheduler's tasks (docs/controller.md section
// 5.2). A broker set's state is independent of every other set's, except
// for three things that are global:
//   - the bounds controllerMaxBrokerSets and controllerMaxStateBytes, which
//     builders check against the leader's config (statesize.go checkRoom)
//     and Apply cannot check again deterministically;
//   - the tombstone floor (tombstone.go): a clean that leaves more than
//     maxRetiredSets tombstones folds them into a floor that every set
//     without a replica half hands out its first id from (firstBrokerID);
//   - the tombstone of a name, which a clean creates and APPLY_BROKER_ID
//     revives.
//
// None of them takes a key: a task holds its set's key alone. The bounds
// are kept exact by reservations instead (the controller's reservations): a builder that
// grows the state reserves the growth with its check, and the
// reservation is counted by every other check until the entry is applied
// or lost; a request that grows nothing reserves nothing. A tombstone is
// its set's, under the set's key. A fold raises the floor only, and
// Apply's membership check of APPLY_BROKER_ID (brokerIDApplicable) refuses
// a first id read before it: the broker asks again, as when two brokers
// raced for an id.

// maxTaskKeys is the number of set names past which a task is global.
const maxTaskKeys = 64

// schedKey is one key: a broker set's name.
type schedKey struct {
	name string
}

// Keys are the keys of one task; global means every key. own marks
// the controller's own election of a set: at most one runs
// per stored set, so it is admitted past the bound of live tasks, which a
// stranger's requests can fill.
type Keys struct {
	keys   []schedKey
	global bool
	own    bool
	read   bool     // a read of names: it waits for them and holds no task back
	Names  []string // a read's set names, sorted, without duplicates
	Weight int64    // bytes the task holds, counted against the budget
}

// GlobalKeys is a task ordered with every other task.
func GlobalKeys() Keys { return Keys{global: true} }

// SetKeys are the keys of a task that reads or changes the named sets,
// deduplicated; no name, or more than maxTaskKeys, make it global.
func SetKeys(names ...string) Keys {
	if len(names) == 0 || len(names) > maxTaskKeys {
		return GlobalKeys()
	}
	keys := make([]schedKey, 0, len(names))
	seen := make(map[string]struct{}, len(names))
	for _, n := range names {
		if _, dup := seen[n]; !dup {
			seen[n] = struct{}{}
			keys = append(keys, schedKey{name: n})
		}
	}
	return Keys{keys: keys}
}

// OwnElectionKeys are the keys of the controller's own election of set
// name: its set, admitted past the bound and ahead of the set's waiting
// tasks (Keys.own).
func OwnElectionKeys(name string) Keys {
	k := SetKeys(name)
	k.own = true
	return k
}

// ReadKeys are the keys of a read of the named sets (1006), however many:
// the read waits for the live tasks of those sets (and the last global
// task) but is no key's tail, so no later task waits for it. It appends
// nothing that changes a set, so a later task need not follow it; no name
// waits for nothing but the last global task. names are sorted and
// deduplicated in place (a 1006 reply does not depend on their order) and
// kept only until the task is linked: a task holds no per-name key.
func ReadKeys(names []string) Keys {
	slices.Sort(names)
	return Keys{Names: slices.Compact(names), read: true}
}
