//go:build embedded_controller

package controller

import (
	"errors"
	"fmt"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// Response codes of RocketMQ (RemotingSysResponseCode.java) that the
// controller answers with (responseCode, docs/controller.md section 1.3);
// the controller's own, 2000-2016 (ResponseCode.java), are remoting's.
const (
	codeSuccess                 int32 = 0
	codeSystemError             int32 = 1
	codeSystemBusy              int32 = 2
	codeRequestCodeNotSupported int32 = 3
	codeNoPermission            int32 = 16
)

// Fixed Java remarks.
const (
	remarkNotLeader                   = "The controller is not in leader state"
	remarkNotSetAnyResponseCode       = "not set any response code"
	remarkMetadataNotExist            = "Broker metadata is not existed"
	remarkOverload                    = "[OVERLOAD]system busy, start flow control for a while"
	remarkBlackList                   = "Can not update config in black list."
	remarkElectFailed                 = "Failed to elect a new master"
	remarkEpochExhausted              = "an epoch of the broker set has reached its int32 maximum"
	remarkMasterNotAvailable          = "Old master has down and failed to elect a new broker master"
	remarkBrokerNotRegisteredForElect = "Broker hasn't been registered"
	remarkSameSyncStateSet            = "The newSyncStateSet is equal with oldSyncStateSet, no needed to update syncStateSet"
)

// heartbeatSuccessRemark is the remark of a successful BROKER_HEARTBEAT (904).
const heartbeatSuccessRemark = "Heart beat success"

// Domain errors. Every rejection a command builder returns wraps exactly one
// of these (errors.Is works) inside a *domainError that carries the exact Java
// remark. responseCode maps them to the Java code; that table is the only
// place where codes are chosen.
var (
	errSystem                     = errors.New("system error")                                      // 1
	errSystemBusy                 = errors.New("system busy")                                       // 2
	errRequestCodeNotSupported    = errors.New("request code not supported")                        // 3
	errNoPermission               = errors.New("no permission")                                     // 16
	errFencedMasterEpoch          = errors.New("fenced master epoch")                               // 2000
	errFencedSyncStateSetEpoch    = errors.New("fenced sync-state-set epoch")                       // 2001
	errInvalidMaster              = errors.New("invalid master")                                    // 2002
	errInvalidReplicas            = errors.New("invalid replicas")                                  // 2003
	errMasterNotAvailable         = errors.New("master not available")                              // 2004
	errInvalidRequest             = errors.New("invalid request")                                   // 2005
	errBrokerNotAlive             = errors.New("broker not alive")                                  // 2006
	errNotLeader                  = errors.New("controller not leader")                             // 2007
	errBrokerMetadataNotExist     = errors.New("broker metadata not exist")                         // 2008
	errInvalidCleanBrokerMetadata = errors.New("invalid clean broker metadata")                     // 2009
	errBrokerNeedToBeRegistered   = errors.New("broker need to be registered")                      // 2010
	errMasterStillExist           = errors.New("master still exist")                                // 2011
	errElectMasterFailed          = errors.New("elect master failed")                               // 2012
	errAlterSyncStateSetFailed    = errors.New("alter sync-state set failed")                       // 2013
	errBrokerIDInvalid            = errors.New("broker id invalid")                                 // 2014
	errJRaftInternal              = errors.New("jraft internal error (never produced here)")        // 2015
	errBrokerLiveInfoNotExists    = errors.New("broker live info not exists (never produced here)") // 2016
	// errInvalidField: a name, address, check code or id that breaks the
	// rules of the replicated state (field_rules.go); 2005.
	errInvalidField = errors.New("invalid request field")
	// errStateBound: the change would pass a bound of the replicated state
	// (statesize.go, config.StateBounds); 2005.
	errStateBound = errors.New("replicated state bound reached")
	// errPeerAccount: controllerAccessKey names no usable account, so the
	// node cannot sign its requests to the other controllers (acl.go).
	errPeerAccount = errors.New("cannot sign requests to the other controllers")
)

// codeTable is the single mapping from domain error to Java response code.
var codeTable = []struct {
	err  error
	code int32
}{
	{errSystem, codeSystemError},
	{errSystemBusy, codeSystemBusy},
	{errRequestCodeNotSupported, codeRequestCodeNotSupported},
	{errNoPermission, codeNoPermission},
	{errFencedMasterEpoch, remoting.ControllerFencedMasterEpoch},
	{errFencedSyncStateSetEpoch, remoting.ControllerFencedSyncStateSetEpoch},
	{errInvalidMaster, remoting.ControllerInvalidMaster},
	{errInvalidReplicas, remoting.ControllerInvalidReplicas},
	{errMasterNotAvailable, remoting.ControllerMasterNotAvailable},
	{errInvalidRequest, remoting.ControllerInvalidRequest},
	{errBrokerNotAlive, remoting.ControllerBrokerNotAlive},
	{errNotLeader, remoting.ControllerNotLeader},
	{errBrokerMetadataNotExist, remoting.ControllerBrokerMetadataNotExist},
	{errInvalidCleanBrokerMetadata, remoting.ControllerInvalidCleanBrokerMetadata},
	{errBrokerNeedToBeRegistered, remoting.ControllerBrokerNeedToBeRegistered},
	{errMasterStillExist, remoting.ControllerMasterStillExist},
	{errElectMasterFailed, remoting.ControllerElectMasterFailed},
	{errAlterSyncStateSetFailed, remoting.ControllerAlterSyncStateSetFailed},
	{errBrokerIDInvalid, remoting.ControllerBrokerIDInvalid},
	{errJRaftInternal, remoting.ControllerJRaftInternalError},
	{errBrokerLiveInfoNotExists, remoting.ControllerBrokerLiveInfoNotExists},
	{errInvalidField, remoting.ControllerInvalidRequest},
	{errStateBound, remoting.ControllerInvalidRequest},
	{liveness.ErrRefused, remoting.ControllerInvalidRequest},
	{wire.ErrBadRequest, codeSystemError}, // a header or body that does not decode
}

// defaultRemarks are used when a bare sentinel (not a *domainError) is mapped.
var defaultRemarks = map[error]string{
	errNotLeader:    remarkNotLeader,
	errSystemBusy:   remarkOverload,
	errSystem:       remarkNotSetAnyResponseCode,
	errNoPermission: remarkBlackList,
}

// domainError is a domain rejection: a sentinel Kind plus the exact remark Java
// sends for it.
type domainError struct {
	Kind   error
	Remark string
	// Field and Key, when set, name the request field that broke a rule
	// and the configuration key whose bound it passed (refused.go).
	Field, Key string
}

// Error returns the remark.
func (e *domainError) Error() string { return e.Remark }

// Unwrap returns the sentinel kind, so errors.Is(err, errFencedMasterEpoch) works.
func (e *domainError) Unwrap() error { return e.Kind }

// newError builds a *domainError with a formatted remark.
func newError(kind error, format string, args ...any) *domainError {
	return &domainError{Kind: kind, Remark: fmt.Sprintf(format, args...)}
}

// responseCode maps a command result error to the Java response code and
// remark: nil → (0, ""); a *domainError → its kind's code and its remark; a bare
// sentinel → its code and a default remark; anything else → (1, err.Error()),
// the way Java turns a handler exception into SYSTEM_ERROR.
func responseCode(err error) (int32, string) {
	if err == nil {
		return codeSuccess, ""
	}
	remark := err.Error()
	var de *domainError
	if !errors.As(err, &de) {
		if r, ok := defaultRemarks[err]; ok {
			remark = r
		}
	}
	for _, row := range codeTable {
		if errors.Is(err, row.err) {
			return row.code, remark
		}
	}
	return codeSystemError, remark
}
