// Package admin is the client library behind cmd/mqadmin: typed calls over
// remoting.Client to one or more NameServers and Controllers, and the
// analyses built on them (route comparison across NameServers, topic
// diagnosis, waiting for a route).
//
// Calls take the address they go to; a Client keeps one connection per
// address and redials when it is gone. A reply whose code is not SUCCESS
// becomes a *ResponseError; an address that cannot be dialled or stops
// answering yields an error wrapping ErrUnreachable. Results are the
// domain types of namesrv/route or the small types declared here; the
// package never prints.
//
// Controller headers and bodies are encoded and decoded with
// controller/wire, the Controller's untagged wire format (package
// controller itself links hashicorp/raft).
package admin
