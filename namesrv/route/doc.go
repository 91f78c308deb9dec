// Package route owns the NameServer's route tables: topics and their
// queues, broker groups and their addresses, clusters, broker liveness,
// filter servers and static-topic mappings (RouteInfoManager.java).
//
// Every mutation goes through one coordinator (a mutex) that updates the
// source tables and then publishes an immutable TopicSnapshot for each
// affected topic. Lookup reads a published snapshot with atomic loads only:
// it never takes the coordinator and never joins tables that are changing.
// The topic -> row index (topicQueueTable itself) is an open-addressed
// table of atomic slots (pubtable.go): adding or withdrawing a topic is one
// slot store, so a registration costs what it carries whatever the size of
// the table. A new row is published at once with no snapshot (a lookup
// answers it as missing); a removed row stays published with its last
// snapshot until the commit withdraws it, and gets revived if its topic is
// put back in the same mutation, so a lookup answers the state before or
// after the mutation. Topics with equal routes (the same queue data on
// the same broker groups) publish one interned snapshot (intern.go),
// reference-counted by the coordinator, so a million topics on a thousand groups
// hold about a thousand snapshots; a change moves a topic from one
// immutable snapshot to another with one atomic store.
// Snapshots on the same broker groups share one BrokerData list. A
// BodyCache keeps the processors' encoded route bodies in the snapshots'
// typed slots against a byte budget, equal bodies held (and counted) once;
// the Manager uncounts them when the last snapshot holding them is no
// longer published by any topic.
//
// A registration's topic table is digested (TopicsDigest, filled by the decoders)
// before the coordinator is taken: a new DataVersion whose topic content
// is the one last applied, with no QueueData changed since, changes
// nothing and is not re-applied. Long loops under the coordinator yield
// the processor to waiting goroutines every few hundred topics.
// A live entry remembers the digest of the body last applied for it
// (unchanged.go): a byte-identical re-registration that provably changes
// nothing but liveness is applied by RegisterIfUnchanged without the body.
// A body without DataVersion timestamp (RegisterBody.DataVersionUnstamped)
// is a new version every time: no digest is remembered for it. A null
// DataVersion, topic table or wrapper (the RegisterBody flags) is kept as
// Java keeps the null, including where Java throws on it (steps 6 and 7).
// Liveness lives in its own small table with an expiry heap so heartbeats
// do not wait behind registrations, and unregistrations are applied in
// batches by one worker, fenced by the generation of the live entry they
// target. A group lists an address only while the address has a live
// entry or an open connection that registered it (deadaddr.go,
// connaddrs.go): once those connections are closed or expired and its
// live entries gone, no group and no route names it; while one is open,
// unregistrations and refusals do what Java does.
//
// The package never reads bytes: it has no JSON, no frames and does not
// import the remoting layer (a BodyCache only stores encodings). Processors
// decode requests into the values of namesrv/wire, whose codec encodes
// what the Manager returns; the tables hold and publish those values
// as they are, with no conversion.
package route
