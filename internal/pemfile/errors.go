package pemfile

import "errors"

// Sentinel errors of this package; returned errors wrap one of them with
// %w, or are the read's own error (which names the path).
var (
	// ErrMaterial means a certificate, key or trust file could not be used.
	ErrMaterial = errors.New("tls material unusable")
	// ErrKeyPassword means an encrypted key could not be decrypted with
	// the password given (or none was given).
	ErrKeyPassword = errors.New("tls key password wrong or missing")
	// ErrUnsupportedKey means a key's format or encryption is not one we
	// read.
	ErrUnsupportedKey = errors.New("unsupported tls key format")
	// ErrKeyMismatch means a private key is not the key of the certificate
	// it was paired with.
	ErrKeyMismatch = errors.New("the private key does not match the certificate's public key")
	// ErrNoPeerCertificate means a peer presented no certificate to verify.
	ErrNoPeerCertificate = errors.New("the peer sent no certificate")
)
