package tlsconf

import "errors"

// Sentinel errors of the tlsconf package; returned errors wrap one of them
// with %w and name the key and file concerned.
var (
	// ErrMaterial means a certificate, key or trust file could not be used.
	ErrMaterial = errors.New("tls material unusable")
	// ErrKeyPassword means an encrypted key could not be decrypted with
	// the configured password (or none was configured).
	ErrKeyPassword = errors.New("tls key password wrong or missing")
	// ErrUnsupportedKey means a key's format or encryption is not one we
	// read.
	ErrUnsupportedKey = errors.New("unsupported tls key format")
	// ErrTLSRefused means a connection was closed by tls.server.mode: TLS
	// on a listener that cannot speak it, or plaintext on an enforcing one.
	ErrTLSRefused = errors.New("connection refused by tls.server.mode")
)
