// Package namesrv is the RocketMQ NameServer: the request processors for
// every NameServer request code, the wiring of the route tables (package
// route), the wire values and JSON bodies (package wire), the KV store
// (package kv) and the remoting server, and the broker notifications it
// sends.
//
// Processors decode typed header fields and bodies, call the route manager,
// the KV store or the configuration through small interfaces declared here,
// and build the response. They never touch route tables directly, and the
// route tables never see bytes. Domain errors become response codes in one
// table (errors.go).
//
// After a restart, with warmupForwardPeers set, route lookups of topics
// not known yet are forwarded to the other NameServers for
// warmupForwardSeconds (warmup.go, warmup_peer.go); it owns those peer
// connections.
package namesrv
