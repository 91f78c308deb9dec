package proxyproto

import "errors"

// Sentinel errors of the proxyproto package; returned errors wrap one of
// them with %w.
var (
	// ErrBadHeader means a PROXY header does not follow the HAProxy
	// specification (a bad line, version, command, family or address).
	ErrBadHeader = errors.New("proxyproto: bad PROXY header")
	// ErrTruncated means the connection ended or timed out inside a header.
	ErrTruncated = errors.New("proxyproto: truncated PROXY header")
	// ErrUntrusted means a header came from a source outside the trusted
	// list: the connection is refused as a spoofing attempt.
	ErrUntrusted = errors.New("proxyproto: PROXY header from an untrusted source")
)
