// Package route owns the NameServer's route tables: topics and their
// queues, broker groups and their addresses, clusters, broker liveness,
// filter servers and static-topic mappings (RouteInfoManager.java).
//
// Every mutation goes through one coordinator (a mutex) that updates the
// source tables and then publishes an immutable TopicSnapshot for each
// affected topic. Lookup reads a published snapshot with atomic loads only:
// it never takes the coordinator and never joins tables that are changing.
// Liveness lives in its own small table with an expiry heap so heartbeats
// do not wait behind registrations, and unregistrations are applied in
// batches by one worker, fenced by the generation of the live entry they
// target.
//
// The package never sees bytes: it has no JSON, no frames and does not
// import the remoting layer. Processors decode requests into the types
// declared here and encode what the Manager returns.
package route
