// Package pemfile is the one place that reads TLS material from PEM
// files, for the remoting and metrics listeners and our clients
// (tlsconf, the tls.* keys) and for the Raft transport (certreload, the
// controllerRaftTls* keys).
//
// It owns the bounded read of a certificate, key or CA file (a regular
// file of at most MaxBytes, through internal/watchedfile: a FIFO or
// device is refused without waiting), parsing certificate chains and
// private keys (PKCS#1, SEC 1, PKCS#8 and PKCS#8 encrypted with PBES2 as
// Java and openssl write it), pairing a chain with its key, and verifying
// a peer's chain against a CA pool without a host name (peers are dialled
// by IP). Noticing that a file changed is watchedfile.Stamp's business.
//
// It imports only internal/watchedfile of this module.
package pemfile
