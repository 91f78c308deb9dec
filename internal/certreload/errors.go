package certreload

import (
	"errors"
	"fmt"
)

// Sentinel errors of this package; returned errors wrap one of them.
var (
	// ErrFile reports a file that cannot be read or holds no usable PEM
	// material; it comes as a *FileError naming the file and its Role.
	ErrFile = errors.New("certreload: bad tls file")
	// ErrUntrustedPeer reports a peer whose certificate chain does not
	// verify against the trusted CAs (another CA, expired, wrong usage).
	ErrUntrustedPeer = errors.New("certreload: untrusted peer certificate")
	// ErrNotValidNow reports a certificate outside its validity period by
	// this host's wall clock; it comes inside a *FileError. A reload
	// refused for it alone is tried again at each check.
	ErrNotValidNow = errors.New("outside its validity period")
)

// Role says which of the three files a FileError concerns.
type Role int

// The files a Reloader reads.
const (
	RoleCert  Role = iota // the node's certificate chain
	RoleKey               // the node's private key
	RoleTrust             // the trusted CA certificates
)

func (r Role) String() string {
	switch r {
	case RoleCert:
		return "certificate"
	case RoleKey:
		return "private key"
	default:
		return "trusted CA certificates"
	}
}

// FileError is one bad file. It wraps ErrFile and the cause.
type FileError struct {
	Role Role
	Path string
	Err  error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s file %s: %v", e.Role, e.Path, e.Err)
}

// Unwrap returns ErrFile and the cause.
func (e *FileError) Unwrap() []error { return []error{ErrFile, e.Err} }
