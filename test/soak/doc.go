// Package soak holds the NameServer soak test: many loopback connections
// doing route lookups and re-registrations next to clients that drop their
// connections, never read or read slowly. `go test ./test/soak/` runs the
// short mode (~15 s, 100 connections); RMQ_TEST_LONG=1 runs 1,000
// connections for 2 minutes, RMQ_SOAK_DURATION sets the load phase and
// RMQ_SOAK_SEED replays a seed.
package soak
