package tlsconf

import (
	"errors"

	"github.com/rmqgo/nameserver/internal/pemfile"
)

// Sentinel errors of the tlsconf package; returned errors wrap one of them
// with %w and name the key and file concerned. The first three are
// internal/pemfile's, which reads the files.
var (
	// ErrMaterial means a certificate, key or trust file could not be used.
	ErrMaterial = pemfile.ErrMaterial
	// ErrKeyPassword means an encrypted key could not be decrypted with
	// the configured password (or none was configured).
	ErrKeyPassword = pemfile.ErrKeyPassword
	// ErrUnsupportedKey means a key's format or encryption is not one we
	// read.
	ErrUnsupportedKey = pemfile.ErrUnsupportedKey
	// ErrTLSRefused means a connection was closed by tls.server.mode: TLS
	// on a listener that cannot speak it, or plaintext on an enforcing one.
	ErrTLSRefused = errors.New("connection refused by tls.server.mode")
)
