//go:build embedded_controller

package controller

import "time"

// ElectTrigger says who asked for an election (reference §3.1).
type ElectTrigger string

// Election triggers.
const (
	// TriggerBroker is a 1002 sent by a broker for itself (T3).
	TriggerBroker ElectTrigger = "broker"
	// TriggerAdmin is a 1002 with designateElect=true (T4).
	TriggerAdmin ElectTrigger = "admin"
	// TriggerInactive is the leader reacting to its master going inactive:
	// heartbeat expiry or connection close (T1).
	TriggerInactive ElectTrigger = "inactive"
	// TriggerScan is the leader's periodic inactive-master scan (T2).
	TriggerScan ElectTrigger = "scan"
)

// Observer receives the controller's metrics hooks. All methods may be
// called concurrently and must not block. Embed NopObserver to implement
// only some of them.
type Observer interface {
	// ElectionFinished reports one election: a 1002 request, or a whole
	// controller-triggered retry loop (code of its last attempt).
	ElectionFinished(trigger ElectTrigger, code int32, elapsed time.Duration)
	// LeadershipChanged reports this node becoming a ready leader (after
	// the barrier) or ceasing to be one.
	LeadershipChanged(ready bool)
	// ConnClosed reports a closed broker-facing connection once the
	// heartbeat manager has handled it; evicted counts the brokers whose
	// live entry it removed (0 for a stale connection).
	ConnClosed(conn ConnID, evicted int)
	// NotifySent reports one NOTIFY_BROKER_ROLE_CHANGED delivery attempt.
	NotifySent(addr string, masterEpoch int32, err error)
}

// NopObserver implements Observer by doing nothing.
type NopObserver struct{}

// ElectionFinished implements Observer.
func (NopObserver) ElectionFinished(ElectTrigger, int32, time.Duration) {}

// LeadershipChanged implements Observer.
func (NopObserver) LeadershipChanged(bool) {}

// ConnClosed implements Observer.
func (NopObserver) ConnClosed(ConnID, int) {}

// NotifySent implements Observer.
func (NopObserver) NotifySent(string, int32, error) {}

var _ Observer = NopObserver{}
