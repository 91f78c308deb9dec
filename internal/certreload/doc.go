// Package certreload owns a node's TLS material read from PEM files: its
// certificate and private key and the CA certificates it trusts. It loads
// and checks the three files (unencrypted PKCS#1, PKCS#8 and SEC 1 EC
// keys), hands out server and client tls.Configs for mutual TLS that
// verify the peer's chain against the trusted CAs only (no host name), and
// reloads the files when they change (checked at most every
// CheckInterval, on a handshake) without touching open connections. A
// reload that fails keeps the previous material and logs an error.
//
// Reading and parsing the files, pairing the key and verifying a chain
// are internal/pemfile's, noticing a change internal/watchedfile's Stamp;
// it knows nothing of Raft or RocketMQ.
package certreload
