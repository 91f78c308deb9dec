package kv

import "errors"

// Sentinel errors of the kv package. Returned errors wrap one of them with %w
// and add the path, namespace or key concerned.
var (
	// ErrClosed is returned by writes after Close.
	ErrClosed = errors.New("kv store closed")
	// ErrOpen means the bbolt file could not be opened, locked or read.
	ErrOpen = errors.New("cannot open kv store")
	// ErrImport means the Java kvConfig.json could not be read or parsed.
	ErrImport = errors.New("cannot import java kv config")
	// ErrWrite means a write transaction failed; memory is left unchanged.
	ErrWrite = errors.New("kv write failed")
)
