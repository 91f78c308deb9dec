package acl

import "errors"

// Sentinel errors of the acl package; returned errors wrap one of them with
// %w and name the file, key or access key concerned (never a secret).
var (
	// ErrBadFile means the accounts file cannot be read or is invalid.
	ErrBadFile = errors.New("bad acl file")
	// ErrBadPattern means an address pattern does not parse.
	ErrBadPattern = errors.New("bad address pattern")
	// ErrDenied means a request is not allowed; see Decision.
	ErrDenied = errors.New("access denied")
)
