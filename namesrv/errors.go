package namesrv

import (
	"errors"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/namesrv/route"
	"github.com/rmqgo/nameserver/remoting"
)

// Errors returned by the NameServer processors and server.
var (
	// ErrMissingField means a required header field is absent.
	ErrMissingField = errors.New("the custom field is null")
	// ErrBadField means a header field does not parse as its Java type.
	ErrBadField = errors.New("bad header field")
	// ErrCRCMismatch means bodyCrc32 does not match the body.
	ErrCRCMismatch = errors.New("crc32 not match")
	// ErrNotReady means needWaitForService holds and the wait is not over.
	ErrNotReady = errors.New("name server not ready")
	// ErrDisabled means the request is switched off by configuration.
	ErrDisabled = errors.New("disable")
	// ErrUnregisterQueueFull means the batch-unregistration queue is full.
	ErrUnregisterQueueFull = errors.New("unregister queue full")
	// ErrNullKey means a KV put without namespace or key.
	ErrNullKey = errors.New("namespace or key is null")
	// ErrWarmupClosed means a warm-up forward was tried after shutdown began.
	ErrWarmupClosed = errors.New("warm-up forwarding closed")
	// ErrPeerUnreachable means a warm-up peer is skipped after a failed dial
	// or a timeout.
	ErrPeerUnreachable = errors.New("warm-up peer unreachable")
)

// errorCodes is the one table that maps domain errors to response codes and
// Java's fixed remark ("" where Java sends none). Errors not in the table
// are a SYSTEM_ERROR carrying the error text.
var errorCodes = []struct {
	err    error
	code   int32
	remark string
}{
	{route.ErrRegisterFailed, remoting.SystemError, "register broker failed"},
	{ErrCRCMismatch, remoting.SystemError, "crc32 not match"},
	{ErrNotReady, remoting.SystemError, "name server not ready"},
	{ErrDisabled, remoting.SystemError, "disable"},
	{ErrUnregisterQueueFull, remoting.SystemError, ""},
	{ErrNullKey, remoting.SystemError, "namespace or key is null"},
	{config.ErrBlackListed, remoting.NoPermission, "Can not update config in black list."},
	{config.ErrBadProperties, remoting.SystemError, "string2Properties error"},
}

// errorResponse builds the response for a domain error through errorCodes.
func errorResponse(req *remoting.Command, err error) *remoting.Command {
	for _, e := range errorCodes {
		if errors.Is(err, e.err) {
			return remoting.NewResponse(req, e.code, e.remark)
		}
	}
	return remoting.NewResponse(req, remoting.SystemError, err.Error())
}
