//go:build embedded_controller

package controllertest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/ctlbroker"
)

// fakeBroker is a controller-mode broker following docs/controller.md section 7
// (ctlbroker.Broker: it listens on its own address for 1008, keeps one
// connection per controller, finds the leader with 1005 and re-discovers it
// on 2007), bound to a test: every call is bounded by waitLimit and a failure
// fails the test.
type fakeBroker struct {
	*ctlbroker.Broker
	t    testing.TB
	addr string
	id   int64 // set by applyID
}

func newFakeBroker(t testing.TB, cluster, name string, ctlAddrs []string, hbTimeout time.Duration) *fakeBroker {
	t.Helper()
	b, err := ctlbroker.New(ctlbroker.Config{Cluster: cluster, Name: name, Controllers: ctlAddrs, HeartbeatTimeout: hbTimeout})
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return &fakeBroker{Broker: b, t: t, addr: b.Addr()}
}

// ctx bounds one call by waitLimit.
func (b *fakeBroker) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	b.t.Cleanup(cancel)
	return ctx
}

// reconnect moves the broker to fresh controller connections (the old
// ones close after a heartbeat on the new ones).
func (b *fakeBroker) reconnect() {
	b.t.Helper()
	require.NoError(b.t, b.Reconnect(b.ctx()))
}

// decodeReplicas parses a 1006 body.
func decodeReplicas(body []byte) (wire.BrokerReplicasInfo, error) {
	return wire.DecodeBrokerReplicasInfo(body)
}

// invoke sends req to addr and waits for the reply.
func (b *fakeBroker) invoke(addr string, code int32, ext map[string]string, body []byte) (*remoting.Command, error) {
	return b.Invoke(b.ctx(), addr, code, ext, body)
}

// findLeader is docs/controller.md section 7 step 2: the first 1005 answer
// naming a leader.
func (b *fakeBroker) findLeader() string {
	leader, _ := b.FindLeader(b.ctx())
	return leader
}

// call sends a leader-gated request, re-discovering the leader on 2007 or
// a broken connection, until waitLimit.
func (b *fakeBroker) call(code int32, ext map[string]string, body []byte) *remoting.Command {
	b.t.Helper()
	resp, err := b.Call(b.ctx(), code, ext, body)
	require.NoError(b.t, err, "broker %s: no leader answered code %d", b.addr, code)
	return resp
}

// applyID is docs/controller.md section 7 step 3: 1012, then 1013 with the
// proposed id.
func (b *fakeBroker) applyID() int64 {
	b.t.Helper()
	id, err := b.ApplyID(b.ctx())
	require.NoError(b.t, err)
	b.id = id
	return id
}

// ident returns the broker's id as text.
func (b *fakeBroker) ident() string { return strconv.FormatInt(b.id, 10) }

// register is docs/controller.md section 7 step 4 (1003).
func (b *fakeBroker) register() *remoting.Command {
	b.t.Helper()
	resp, err := b.Register(b.ctx())
	require.NoError(b.t, err)
	return resp
}

// elect is docs/controller.md section 7 step 6 (1002, broker trigger).
func (b *fakeBroker) elect() *remoting.Command {
	b.t.Helper()
	resp, err := b.Elect(b.ctx())
	require.NoError(b.t, err)
	return resp
}

// alter is docs/controller.md section 7 step 8 (1001) as master with the
// given epochs.
func (b *fakeBroker) alter(masterEpoch, ssEpoch int, ids ...int64) *remoting.Command {
	b.t.Helper()
	resp, err := b.Alter(b.ctx(), int32(masterEpoch), int32(ssEpoch), ids...)
	require.NoError(b.t, err)
	return resp
}

// replicaInfo is the periodic 1004 of docs/controller.md section 7 step 7.
func (b *fakeBroker) replicaInfo() *remoting.Command {
	b.t.Helper()
	resp, err := b.ReplicaInfo(b.ctx())
	require.NoError(b.t, err)
	return resp
}

// heartbeatSync sends 904 to every controller and waits for each reply, so
// that every reachable controller has recorded it on return.
func (b *fakeBroker) heartbeatSync() {
	b.t.Helper()
	require.NoError(b.t, b.HeartbeatSync(b.ctx()))
}

// waitNotice waits for a 1008 naming masterEpoch.
func (b *fakeBroker) waitNotice(masterEpoch int) (ctlbroker.Notice, error) {
	return b.WaitNotice(b.ctx(), int32(masterEpoch))
}
