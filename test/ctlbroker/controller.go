package ctlbroker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// rediscoverPause is the pause before asking for the leader again.
const rediscoverPause = 20 * time.Millisecond

// CodeError is an answer with an unexpected response code.
type CodeError struct {
	Op     string
	Code   int32
	Remark string
}

func (e *CodeError) Error() string {
	return fmt.Sprintf("%s: code %d: %s", e.Op, e.Code, e.Remark)
}

// expect turns an answer whose code is not among ok into a *CodeError.
func expect(op string, resp *remoting.Command, ok ...int32) error {
	for _, c := range ok {
		if resp.Code == c {
			return nil
		}
	}
	return &CodeError{Op: op, Code: resp.Code, Remark: resp.Remark}
}

// FindLeader is docs/controller.md section 7 step 2: the
// controllerLeaderAddress of the first 1005 answer naming one, with that
// answer; "" when no controller names one.
func (b *Broker) FindLeader(ctx context.Context) (string, *remoting.Command) {
	for _, addr := range b.cfg.Controllers {
		resp, err := b.Invoke(ctx, addr, remoting.ControllerGetMetadataInfo, nil, nil)
		if err == nil && resp.ExtFields["controllerLeaderAddress"] != "" {
			return resp.ExtFields["controllerLeaderAddress"], resp
		}
	}
	return "", nil
}

// Call sends a leader-gated request, finding the leader first and again on
// CONTROLLER_NOT_LEADER (2007) or a broken connection, until ctx ends.
func (b *Broker) Call(ctx context.Context, code int32, ext map[string]string, body []byte) (*remoting.Command, error) {
	for {
		resp, err := b.callLeader(ctx, code, ext, body)
		if err == nil {
			return resp, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("code %d: %w (last: %v)", code, ctx.Err(), err)
		case <-time.After(rediscoverPause):
		}
	}
}

// callLeader is one attempt of Call; on failure the leader is forgotten.
func (b *Broker) callLeader(ctx context.Context, code int32, ext map[string]string, body []byte) (*remoting.Command, error) {
	b.mu.Lock()
	leader := b.leader
	b.mu.Unlock()
	if leader == "" {
		if leader, _ = b.FindLeader(ctx); leader == "" {
			return nil, errors.New("no controller names a leader")
		}
	}
	resp, err := b.Invoke(ctx, leader, code, ext, body)
	if err == nil && resp.Code == remoting.ControllerNotLeader {
		err = fmt.Errorf("%s is not the leader (2007)", leader)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.leader = leader; err != nil {
		b.leader = ""
		b.log.Debug("re-discovering the controller leader", "code", code, "error", err)
	}
	return resp, err
}

// Leader is the controller leader the broker talks to ("" if unknown).
func (b *Broker) Leader() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.leader
}

// setName is the ext fields naming the broker set.
func (b *Broker) setName() map[string]string {
	return map[string]string{"clusterName": b.cfg.Cluster, "brokerName": b.cfg.Name}
}

// ApplyID is docs/controller.md section 7 step 3: 1012 for the next id, then 1013
// applying it with registerCheckCode "addr;millis"; a refused id (2014)
// starts over.
func (b *Broker) ApplyID(ctx context.Context) (int64, error) {
	var err error
	for range 5 {
		var id int64
		if id, err = b.tryApplyID(ctx); err == nil {
			b.mu.Lock()
			b.id = id
			b.mu.Unlock()
			return id, nil
		}
		if ce := (*CodeError)(nil); !errors.As(err, &ce) || ce.Code != remoting.ControllerBrokerIDInvalid {
			return 0, err
		}
	}
	return 0, err
}

// tryApplyID is one 1012 + 1013 round.
func (b *Broker) tryApplyID(ctx context.Context) (int64, error) {
	resp, err := b.Call(ctx, remoting.ControllerGetNextBrokerID, b.setName(), nil)
	if err != nil {
		return 0, err
	}
	if err := expect("get next broker id (1012)", resp, remoting.Success); err != nil {
		return 0, err
	}
	id, err := strconv.ParseInt(resp.ExtFields["nextBrokerId"], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("1012: nextBrokerId: %w", err)
	}
	ext := b.setName()
	ext["appliedBrokerId"] = strconv.FormatInt(id, 10)
	ext["registerCheckCode"] = b.addr + ";" + strconv.FormatInt(time.Now().UnixMilli(), 10)
	if resp, err = b.callSettled(ctx, remoting.ControllerApplyBrokerID, ext, nil); err != nil {
		return 0, err
	}
	return id, expect("apply broker id (1013)", resp, remoting.Success)
}

// Register is docs/controller.md section 7 step 4 (1003); any code but 0 is
// an error.
func (b *Broker) Register(ctx context.Context) (*remoting.Command, error) {
	ext := b.setName()
	ext["brokerId"], ext["brokerAddress"] = b.ident(), b.addr
	ext["invokeTime"] = strconv.FormatInt(time.Now().UnixMilli(), 10)
	resp, err := b.callSettled(ctx, remoting.ControllerRegisterBroker, ext, nil)
	if err != nil {
		return nil, err
	}
	return resp, expect("register broker (1003)", resp, remoting.Success)
}

// Elect is docs/controller.md section 7 step 6 (1002, broker trigger); the
// answer is returned as is (0 and 2011 both mean a master exists). An
// answer of 1 is sent again (callSettled): when the first had landed, the
// second is 2011 naming the master the first elected.
func (b *Broker) Elect(ctx context.Context) (*remoting.Command, error) {
	ext := b.setName()
	ext["brokerId"], ext["designateElect"] = b.ident(), "false"
	ext["invokeTime"] = strconv.FormatInt(time.Now().UnixMilli(), 10)
	return b.callSettled(ctx, remoting.ControllerElectMaster, ext, nil)
}

// callSettled is Call, sent again while the answer is 1 (SYSTEM_ERROR),
// until ctx ends (then the last answer is returned). A leader that lost its
// lease with the entry in flight, or passed its 5 s deadline, answers 1
// and the entry may still be committed by the next leader, so the outcome
// is unknown; the Java broker retries these steps (1013 with the same
// registerCheckCode, 1003, 1002), whose second sending is harmless when
// the first landed.
func (b *Broker) callSettled(ctx context.Context, code int32, ext map[string]string, body []byte) (*remoting.Command, error) {
	for {
		resp, err := b.Call(ctx, code, ext, body)
		if err != nil || resp.Code != remoting.SystemError {
			return resp, err
		}
		b.log.Debug("outcome unknown, sending again", "code", code, "remark", resp.Remark)
		select {
		case <-ctx.Done():
			return resp, nil
		case <-time.After(rediscoverPause):
		}
	}
}

// Alter is docs/controller.md section 7 step 8 (1001) as master with the given
// epochs; the answer is returned as is.
func (b *Broker) Alter(ctx context.Context, masterEpoch, ssEpoch int32, ids ...int64) (*remoting.Command, error) {
	ext := map[string]string{"brokerName": b.cfg.Name, "masterBrokerId": b.ident(),
		"masterEpoch": strconv.FormatInt(int64(masterEpoch), 10), "invokeTime": strconv.FormatInt(time.Now().UnixMilli(), 10)}
	body, err := json.Marshal(wire.SyncStateSet{SyncStateSet: ids, SyncStateSetEpoch: ssEpoch})
	if err != nil {
		return nil, err
	}
	return b.Call(ctx, remoting.ControllerAlterSyncStateSet, ext, body)
}

// ReplicaInfo is the periodic 1004 of docs/controller.md section 7 step 7; the
// answer is returned as is.
func (b *Broker) ReplicaInfo(ctx context.Context) (*remoting.Command, error) {
	return b.Call(ctx, remoting.ControllerGetReplicaInfo, map[string]string{"brokerName": b.cfg.Name}, nil)
}

// SyncStateData is the admin's 1006 for the broker's set (or the named
// sets); the answer is returned as is.
func (b *Broker) SyncStateData(ctx context.Context, names ...string) (*remoting.Command, error) {
	if len(names) == 0 {
		names = []string{b.cfg.Name}
	}
	body, err := json.Marshal(names)
	if err != nil {
		return nil, err
	}
	return b.Call(ctx, remoting.ControllerGetSyncStateData, nil, body)
}

// CleanBrokerData removes the whole broker set from the controllers (1011
// with isCleanLivingBroker=true, as `mqadmin cleanBrokerMetadata -l`).
func (b *Broker) CleanBrokerData(ctx context.Context) error {
	ext := b.setName()
	ext["isCleanLivingBroker"] = "true"
	ext["invokeTime"] = strconv.FormatInt(time.Now().UnixMilli(), 10)
	resp, err := b.Call(ctx, remoting.CleanBrokerData, ext, nil)
	if err != nil {
		return err
	}
	return expect("clean broker data (1011)", resp, remoting.Success)
}
