package acl

import (
	"errors"

	"github.com/rmqgo/nameserver/internal/aclfile"
)

// Sentinel errors of the acl package; returned errors wrap one of them with
// %w and name the file, key or access key concerned (never a secret).
var (
	// ErrBadFile means the accounts file cannot be read or is invalid.
	ErrBadFile = aclfile.ErrBadFile
	// ErrBadPattern means an address pattern does not parse.
	ErrBadPattern = aclfile.ErrBadPattern
	// ErrDenied means a request is not allowed; see Decision.
	ErrDenied = errors.New("access denied")
)
