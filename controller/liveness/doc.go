// Package liveness is the Controller node's heartbeat table, compiled
// only with the build tag `embedded_controller` (this file is the only one
// without the tag, so that the default build sees an empty package).
//
// It owns, per node and never replicated (brokers beat to every
// controller): the table of brokers' last heartbeats (Table: entries per
// broker identity, each kept alive by the beats of the connections that
// beat for it, each beat for its own capped timeout), its bounds (entries
// per connection and in all, refused with ErrRefused), the expiry scan
// and connection close that report Inactive brokers, and the warm-up
// after which the table is a complete view of liveness (warmup.go). Every
// decision reads the monotonic clock. Reader is what the replicated
// core's command builders and elect policy need from it.
package liveness
