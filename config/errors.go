package config

import "errors"

// Sentinel errors of the config package. Returned errors wrap one of them
// with %w and name the file or key concerned.
var (
	// ErrLoad means a properties file could not be read or parsed.
	ErrLoad = errors.New("cannot load config")
	// ErrInvalid marks one broken rule; Validate joins one per rule.
	ErrInvalid = errors.New("invalid config")
	// ErrControllerNotCompiledIn means enableControllerInNamesrv=true in a
	// binary built without -tags embedded_controller.
	ErrControllerNotCompiledIn = errors.New("controller not compiled in")
	// ErrBlackListed means an update touched a key that cannot be changed
	// remotely (the processor answers 16 "Can not update config in black list.").
	ErrBlackListed = errors.New("can not update config in black list")
	// ErrBadProperties means an update body is not valid Java properties text.
	ErrBadProperties = errors.New("bad properties text")
	// ErrRejectedUpdate means an update would leave the config invalid.
	ErrRejectedUpdate = errors.New("update rejected")
	// ErrPersist means the config could not be written to its store path.
	ErrPersist = errors.New("cannot persist config")
)
