// Package tlsconf turns the TLS settings (config.TLS, Java's
// TlsSystemConfig keys) into the TLS of this process: the server side of
// the remoting listeners (a remoting.ConnHook that tells TLS from plaintext
// by the connection's first byte and applies tls.server.mode, as Java's
// NettyRemotingServer.HandshakeHandler does) and of the metrics listener,
// and the client side of the connections the servers and mqadmin open.
//
// It owns which key names which file (the files themselves are read and
// parsed by internal/pemfile: PEM; PKCS#1, SEC 1 and PKCS#8 keys, PKCS#8
// encrypted with PBES2 as Java and openssl write them), the test-mode
// self-signed certificate, and reloading every file when it changes on
// disk (internal/watchedfile's Stamp): new handshakes get the new
// material, open connections are left alone, and a file that fails to
// load keeps the previous material (logged, counted).
package tlsconf
