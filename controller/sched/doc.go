// Package sched is the Controller leader's task scheduler, compiled only
// with the build tag `embedded_controller` (this file is the only one
// without the tag, so that the default build sees an empty package).
//
// It owns the order of the leader's work per broker set: every task
// carries Keys (the broker sets it reads or changes, global for a task
// that may touch anything, the controller's own election of a set, or a
// read) and waits only for the earlier live tasks sharing a key. It owns
// the bounds of live tasks (count and bytes for requests, a bound of its
// own for own elections) and answers ErrFull past them and ErrStopped
// once stopped. It knows nothing of Raft, the replicated state or the
// wire: the controller submits functions and maps the two errors to its
// response codes.
package sched
