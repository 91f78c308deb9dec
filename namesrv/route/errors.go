package route

import "errors"

// Sentinel errors returned by the Manager. Processors map them to
// response codes in one table.
var (
	// ErrRegisterFailed is the single-topic guard of REGISTER_BROKER: a
	// broker id not yet known registered exactly one topic (Java returns
	// null; the processor answers code 1 "register broker failed").
	ErrRegisterFailed = errors.New("register broker failed")
)
