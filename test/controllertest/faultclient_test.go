//go:build embedded_controller

package controllertest

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/ctlbroker"
)

// faultClient is one client of the fault tests (a broker of faultSet or
// the admin) whose every leader-gated request is one attempt, recorded in
// the history with its outcome: no retries, so that one record is at
// most one command.
type faultClient struct {
	t      testing.TB
	id     int
	b      *ctlbroker.Broker
	set    string // the broker set it belongs to (or reads, as the admin)
	h      *history
	mu     sync.Mutex
	ids    int64  // the broker's id (0: the admin)
	leader string // the controller leader's address ("": find it)
	// last is the newest state this client saw (what a broker acts on).
	last view
}

// newFaultClient starts a broker (or admin) of faultSet talking to ctls.
func newFaultClient(t testing.TB, h *history, id int, ctls []string) *faultClient {
	t.Helper()
	return newSetClient(t, h, id, ctls, faultSet, 10*time.Second)
}

// newSetClient starts a broker (or admin) of broker set set talking to
// ctls, announcing hbTimeout in its heartbeats and recording into h.
func newSetClient(t testing.TB, h *history, id int, ctls []string, set string, hbTimeout time.Duration) *faultClient {
	t.Helper()
	b, err := ctlbroker.New(ctlbroker.Config{Name: set, Controllers: ctls,
		HeartbeatTimeout: hbTimeout, CallTimeout: 8 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return &faultClient{t: t, id: id, b: b, set: set, h: h}
}

// ctx bounds one call.
func (c *faultClient) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

// do sends one request to the leader the broker knows (finding it first)
// and records it. Nothing is recorded when no controller names a leader.
func (c *faultClient) do(in opInput, code int32, ext map[string]string, body []byte) *record {
	ctx, cancel := c.ctx()
	defer cancel()
	c.mu.Lock()
	leader := c.leader
	c.mu.Unlock()
	if leader == "" {
		if leader, _ = c.b.FindLeader(ctx); leader == "" {
			return nil
		}
		c.mu.Lock()
		c.leader = leader
		c.mu.Unlock()
	}
	r := &record{client: c.id, in: in, call: time.Now()}
	resp, err := c.b.Invoke(ctx, leader, code, ext, body)
	r.ret = time.Now()
	if isDialError(err) { // nothing was sent: not an operation
		c.forgetLeader()
		return nil
	}
	if err != nil {
		r.unknown, r.code, r.remark = true, -1, err.Error()
		c.forgetLeader()
	} else {
		parseReply(r, resp)
		r.unknown = isUnknownCode(resp.Code)
		if resp.Code == remoting.ControllerNotLeader {
			c.forgetLeader()
		}
	}
	c.h.add(r)
	c.learn(r)
	return r
}

// isDialError reports a request that failed before it was sent.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// forgetLeader makes the next request find the leader again.
func (c *faultClient) forgetLeader() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.leader = ""
}

// learn keeps the newest view the client saw.
func (c *faultClient) learn(r *record) {
	if r.unknown || !r.out.hasMaster || !r.out.hasSS {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.out.epoch > c.last.epoch || (r.out.epoch == c.last.epoch && r.out.ssEpoch >= c.last.ssEpoch) {
		c.last = r.out
	}
}

// applyID is the broker's 1012 + 1013 (brokerflow's, retried on 2007 with
// the same check code, so idempotent), recorded as one applyId. Setup
// applies ids one broker at a time, so next is the id 1012 hands out: a
// failed attempt is recorded as an unknown applyId(next) (it may have
// committed, and the retry then gets the following id). It reports success.
func (c *faultClient) applyID(next *int64) bool {
	ctx, cancel := c.ctx()
	defer cancel()
	r := &record{client: c.id, in: opInput{kind: opApplyID, broker: *next}, call: time.Now()}
	id, err := c.b.ApplyID(ctx)
	r.ret = time.Now()
	if err != nil {
		r.unknown, r.code, r.remark = true, -1, err.Error()
	} else {
		r.in.broker, c.ids, *next = id, id, id+1
	}
	c.h.add(r)
	return err == nil
}

func (c *faultClient) ext(more ...string) map[string]string {
	m := map[string]string{"clusterName": ctlbroker.DefaultCluster, "brokerName": c.set,
		"invokeTime": strconv.FormatInt(time.Now().UnixMilli(), 10)}
	for i := 0; i+1 < len(more); i += 2 {
		m[more[i]] = more[i+1]
	}
	return m
}

// register is 1003.
func (c *faultClient) register() *record {
	return c.do(opInput{kind: opRegister, broker: c.ids}, remoting.ControllerRegisterBroker,
		c.ext("brokerId", itoa(c.ids), "brokerAddress", c.b.Addr()), nil)
}

// elect is 1002 for the broker itself.
func (c *faultClient) elect() *record {
	return c.do(opInput{kind: opElect, broker: c.ids}, remoting.ControllerElectMaster,
		c.ext("brokerId", itoa(c.ids), "designateElect", "false"), nil)
}

// adminElect is 1002 designating id (mqadmin electMaster).
func (c *faultClient) adminElect(id int64) *record {
	return c.do(opInput{kind: opAdminElect, broker: id}, remoting.ControllerElectMaster,
		c.ext("brokerId", itoa(id), "designateElect", "true"), nil)
}

// alter is 1001 from this broker as master with the given epochs.
func (c *faultClient) alter(masterEpoch, ssEpoch int32, set ...int64) *record {
	ext := map[string]string{"brokerName": c.set, "masterBrokerId": itoa(c.ids),
		"masterEpoch": strconv.Itoa(int(masterEpoch)), "invokeTime": strconv.FormatInt(time.Now().UnixMilli(), 10)}
	body, err := json.Marshal(wire.SyncStateSet{SyncStateSet: set, SyncStateSetEpoch: ssEpoch})
	require.NoError(c.t, err)
	in := opInput{kind: opAlter, broker: c.ids, masterEpoch: masterEpoch, ssEpoch: ssEpoch, newSet: set}
	return c.do(in, remoting.ControllerAlterSyncStateSet, ext, body)
}

// replicaInfo is 1004.
func (c *faultClient) replicaInfo() *record {
	return c.do(opInput{kind: opReplicaInfo}, remoting.ControllerGetReplicaInfo,
		map[string]string{"brokerName": c.set}, nil)
}

// syncState is 1006 for faultSet.
func (c *faultClient) syncState() *record {
	return c.do(opInput{kind: opSyncState}, remoting.ControllerGetSyncStateData, nil, []byte(`["`+faultSet+`"]`))
}

// notices adds the 1008s the broker received to the history.
func (c *faultClient) notices() {
	for _, n := range c.b.Notices() {
		c.h.add(&record{client: c.id, in: opInput{kind: opNotice}, call: n.At, ret: n.At, out: parseNotice(n.Req)})
	}
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }
