// Package raftstore wires hashicorp/raft for the embedded controller.
//
// It owns the Raft plumbing and nothing else: the BoltDB log and stable
// store (raft-boltdb/v2), the file snapshot store, the TCP transport and
// its mutual-TLS variant (a raft.StreamLayer over crypto/tls, handshakes
// bounded and off the accept loop; certificates come from the caller),
// first-start bootstrap of the configured peers (once a majority of them
// answered empty, and every peer answered or a grace passed), the vote
// guard that keeps a node restarted with a wiped data directory from
// voting until it is caught up and, after a bootstrap, from voting or
// campaigning in terms up to its vote floor, and that refuses the
// inbound RPCs hashicorp/raft would panic on or be poisoned by (ErrBadRPC:
// undecodable configurations, gaps, unknown entry types, terms above
// MaxTerm, commands and snapshots the caller's checks refuse, snapshots
// over MaxSnapshotBytes; rpccheck.go), the peer error log that writes a
// failed outbound RPC once per outage of each peer and kind, sums the
// attempts up once per PeerErrorLogInterval and counts them (peerlog.go,
// in place of hashicorp/raft's line per attempt), the Node handle that
// applies commands and reports leadership, and in-memory variants
// (stores, transport, TestCluster) for unit tests of other packages, and
// online membership changes on the leader, one server at a time (a new
// member added as a non-voter and promoted by the leader once caught up,
// removals and moves only while the voters that stay hold a live
// majority; members*.go), with the node's own id recorded in its stores
// so that a node moved with its data directory to a new address starts
// and a directory never runs as another node.
//
// It must not know RocketMQ semantics or what the FSM stores: commands are
// opaque bytes and responses are whatever the caller's raft.FSM returns.
//
// Every other file is compiled only with the build tag
// embedded_controller, so the default build never links hashicorp/raft.
package raftstore
