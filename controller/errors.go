//go:build embedded_controller

package controller

import (
	"errors"
	"fmt"

	"github.com/rmqgo/nameserver/controller/wire"
)

// Response codes of RocketMQ (ResponseCode.java /
// RemotingSysResponseCode.java) that the controller answers with
// (ResponseCode, docs/controller.md section 1.3).
const (
	CodeSuccess                    int32 = 0
	CodeSystemError                int32 = 1
	CodeSystemBusy                 int32 = 2
	CodeRequestCodeNotSupported    int32 = 3
	CodeNoPermission               int32 = 16
	CodeFencedMasterEpoch          int32 = 2000
	CodeFencedSyncStateSetEpoch    int32 = 2001
	CodeInvalidMaster              int32 = 2002
	CodeInvalidReplicas            int32 = 2003
	CodeMasterNotAvailable         int32 = 2004
	CodeInvalidRequest             int32 = 2005
	CodeBrokerNotAlive             int32 = 2006
	CodeNotLeader                  int32 = 2007
	CodeBrokerMetadataNotExist     int32 = 2008
	CodeInvalidCleanBrokerMetadata int32 = 2009
	CodeBrokerNeedToBeRegistered   int32 = 2010
	CodeMasterStillExist           int32 = 2011
	CodeElectMasterFailed          int32 = 2012
	CodeAlterSyncStateSetFailed    int32 = 2013
	CodeBrokerIDInvalid            int32 = 2014
	CodeJRaftInternalError         int32 = 2015
	CodeBrokerLiveInfoNotExists    int32 = 2016
)

// Fixed Java remarks.
const (
	remarkNotLeader                   = "The controller is not in leader state"
	remarkNotSetAnyResponseCode       = "not set any response code"
	remarkHeartbeatEmptyBrokerID      = "Heart beat with empty brokerId"
	remarkMetadataNotExist            = "Broker metadata is not existed"
	remarkOverload                    = "[OVERLOAD]system busy, start flow control for a while"
	remarkBlackList                   = "Can not update config in black list."
	remarkElectFailed                 = "Failed to elect a new master"
	remarkEpochExhausted              = "an epoch of the broker set has reached its int32 maximum"
	remarkMasterNotAvailable          = "Old master has down and failed to elect a new broker master"
	remarkBrokerNotRegisteredForElect = "Broker hasn't been registered"
	remarkSameSyncStateSet            = "The newSyncStateSet is equal with oldSyncStateSet, no needed to update syncStateSet"
)

// HeartbeatSuccessRemark is the remark of a successful BROKER_HEARTBEAT (904).
const HeartbeatSuccessRemark = "Heart beat success"

// Domain errors. Every rejection a command builder returns wraps exactly one
// of these (errors.Is works) inside an *Error that carries the exact Java
// remark. ResponseCode maps them to the Java code; that table is the only
// place where codes are chosen.
var (
	ErrSystem                     = errors.New("system error")                                      // 1
	ErrSystemBusy                 = errors.New("system busy")                                       // 2
	ErrRequestCodeNotSupported    = errors.New("request code not supported")                        // 3
	ErrNoPermission               = errors.New("no permission")                                     // 16
	ErrFencedMasterEpoch          = errors.New("fenced master epoch")                               // 2000
	ErrFencedSyncStateSetEpoch    = errors.New("fenced sync-state-set epoch")                       // 2001
	ErrInvalidMaster              = errors.New("invalid master")                                    // 2002
	ErrInvalidReplicas            = errors.New("invalid replicas")                                  // 2003
	ErrMasterNotAvailable         = errors.New("master not available")                              // 2004
	ErrInvalidRequest             = errors.New("invalid request")                                   // 2005
	ErrBrokerNotAlive             = errors.New("broker not alive")                                  // 2006
	ErrNotLeader                  = errors.New("controller not leader")                             // 2007
	ErrBrokerMetadataNotExist     = errors.New("broker metadata not exist")                         // 2008
	ErrInvalidCleanBrokerMetadata = errors.New("invalid clean broker metadata")                     // 2009
	ErrBrokerNeedToBeRegistered   = errors.New("broker need to be registered")                      // 2010
	ErrMasterStillExist           = errors.New("master still exist")                                // 2011
	ErrElectMasterFailed          = errors.New("elect master failed")                               // 2012
	ErrAlterSyncStateSetFailed    = errors.New("alter sync-state set failed")                       // 2013
	ErrBrokerIDInvalid            = errors.New("broker id invalid")                                 // 2014
	ErrJRaftInternal              = errors.New("jraft internal error (never produced here)")        // 2015
	ErrBrokerLiveInfoNotExists    = errors.New("broker live info not exists (never produced here)") // 2016
)

// codeTable is the single mapping from domain error to Java response code.
var codeTable = []struct {
	err  error
	code int32
}{
	{ErrSystem, CodeSystemError},
	{ErrSystemBusy, CodeSystemBusy},
	{ErrRequestCodeNotSupported, CodeRequestCodeNotSupported},
	{ErrNoPermission, CodeNoPermission},
	{ErrFencedMasterEpoch, CodeFencedMasterEpoch},
	{ErrFencedSyncStateSetEpoch, CodeFencedSyncStateSetEpoch},
	{ErrInvalidMaster, CodeInvalidMaster},
	{ErrInvalidReplicas, CodeInvalidReplicas},
	{ErrMasterNotAvailable, CodeMasterNotAvailable},
	{ErrInvalidRequest, CodeInvalidRequest},
	{ErrBrokerNotAlive, CodeBrokerNotAlive},
	{ErrNotLeader, CodeNotLeader},
	{ErrBrokerMetadataNotExist, CodeBrokerMetadataNotExist},
	{ErrInvalidCleanBrokerMetadata, CodeInvalidCleanBrokerMetadata},
	{ErrBrokerNeedToBeRegistered, CodeBrokerNeedToBeRegistered},
	{ErrMasterStillExist, CodeMasterStillExist},
	{ErrElectMasterFailed, CodeElectMasterFailed},
	{ErrAlterSyncStateSetFailed, CodeAlterSyncStateSetFailed},
	{ErrBrokerIDInvalid, CodeBrokerIDInvalid},
	{ErrJRaftInternal, CodeJRaftInternalError},
	{ErrBrokerLiveInfoNotExists, CodeBrokerLiveInfoNotExists},
	{wire.ErrBadRequest, CodeSystemError}, // a header or body that does not decode
}

// defaultRemarks are used when a bare sentinel (not an *Error) is mapped.
var defaultRemarks = map[error]string{
	ErrNotLeader:    remarkNotLeader,
	ErrSystemBusy:   remarkOverload,
	ErrSystem:       remarkNotSetAnyResponseCode,
	ErrNoPermission: remarkBlackList,
}

// Error is a domain rejection: a sentinel Kind plus the exact remark Java
// sends for it.
type Error struct {
	Kind   error
	Remark string
}

// Error returns the remark.
func (e *Error) Error() string { return e.Remark }

// Unwrap returns the sentinel kind, so errors.Is(err, ErrFencedMasterEpoch) works.
func (e *Error) Unwrap() error { return e.Kind }

// newError builds an *Error with a formatted remark.
func newError(kind error, format string, args ...any) *Error {
	return &Error{Kind: kind, Remark: fmt.Sprintf(format, args...)}
}

// ResponseCode maps a command result error to the Java response code and
// remark: nil → (0, ""); an *Error → its kind's code and its remark; a bare
// sentinel → its code and a default remark; anything else → (1, err.Error()),
// the way Java turns a handler exception into SYSTEM_ERROR.
func ResponseCode(err error) (int32, string) {
	if err == nil {
		return CodeSuccess, ""
	}
	remark := err.Error()
	var de *Error
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
	return CodeSystemError, remark
}
