// Package testcerts makes certificate authorities and leaf certificates for
// tests of the TLS listeners and the Raft transport: ECDSA P-256 keys, IP
// and DNS subject alternative names, chosen validity windows, and PEM files
// written where a test wants them. It is for tests only; nothing in a
// production path imports it.
package testcerts
