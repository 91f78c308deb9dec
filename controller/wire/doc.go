// Package wire is the Controller's wire format: the custom headers of the
// controller request codes (1001-1013 and 904 on the controller port), their
// JSON bodies and the fastjson flavour they are written in. It mirrors the
// Java classes of org.apache.rocketmq.remoting.protocol.header.controller and
// org.apache.rocketmq.remoting.protocol.body (SyncStateSet,
// BrokerMemberGroup, ElectMasterResponseBody, BrokerReplicasInfo).
//
// The package carries no build tag and imports no Raft code: the Controller
// (build tag embedded_controller), the admin client, mqadmin and the tests
// share it.
package wire

import "errors"

// ErrBadRequest is wrapped by every error a request decoder returns: a
// missing @CFNotNull header field or an unreadable body. The Controller
// answers it with code 1 (SYSTEM_ERROR) and the error's text as remark.
var ErrBadRequest = errors.New("bad controller request")

// NoBrokerID is the broker id of "no broker" (a request's absent id, a set
// without master).
const NoBrokerID int64 = -1

// RequestError is a request decoding failure; its text is the exact remark
// Java answers with (RemotingCommand.decodeCommandCustomHeader).
type RequestError struct {
	Remark string
}

// Error returns the remark.
func (e *RequestError) Error() string { return e.Remark }

// Unwrap returns ErrBadRequest.
func (e *RequestError) Unwrap() error { return ErrBadRequest }
