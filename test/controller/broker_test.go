//go:build embedded_controller

package controllertest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/remoting"
)

// notice is a NOTIFY_BROKER_ROLE_CHANGED received on the broker's port.
type notice struct {
	req *remoting.Command
	at  time.Time
}

// fakeBroker is a controller-mode broker following §6: it listens on its
// own address (for 1008), keeps one connection per controller, finds the
// leader with 1005 and re-discovers it on 2007.
type fakeBroker struct {
	t           testing.TB
	cluster     string
	name        string
	addr        string
	ctlAddrs    []string
	hbTimeoutMs int64
	notices     chan notice
	srv         *remoting.Server

	mu       sync.Mutex
	id       int64
	clients  map[string]*remoting.Client
	leader   string
	lastBeat time.Time
	hbStop   chan struct{}
	hbDone   chan struct{}
}

func newFakeBroker(t testing.TB, cluster, name string, ctlAddrs []string, hbTimeout time.Duration) *fakeBroker {
	t.Helper()
	b := &fakeBroker{t: t, cluster: cluster, name: name, ctlAddrs: ctlAddrs, hbTimeoutMs: hbTimeout.Milliseconds(),
		notices: make(chan notice, 64), clients: map[string]*remoting.Client{}}
	b.srv = remoting.NewServer(remoting.ServerConfig{})
	b.srv.Register(remoting.NotifyBrokerRoleChanged, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		b.notices <- notice{req: req, at: time.Now()}
		return nil, nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	b.addr = ln.Addr().String()
	go func() { _ = b.srv.Serve(ln) }()
	t.Cleanup(b.close)
	return b
}

func (b *fakeBroker) close() {
	b.stopHeartbeats()
	b.closeConns()
	_ = b.srv.Close()
}

// client returns the live connection to addr, dialing if needed; nil if
// the controller is unreachable.
func (b *fakeBroker) client(addr string) *remoting.Client {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c, ok := b.clients[addr]; ok {
		select {
		case <-c.Done():
		default:
			return c
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{})
	if err != nil {
		delete(b.clients, addr)
		return nil
	}
	b.clients[addr] = c
	return c
}

// closeConns closes every controller connection (a broker crash, as the
// controllers see it).
func (b *fakeBroker) closeConns() {
	b.mu.Lock()
	clients := b.clients
	b.clients = map[string]*remoting.Client{}
	b.leader = ""
	b.mu.Unlock()
	for _, c := range clients {
		_ = c.Close()
	}
}

// reconnect moves the broker to fresh connections: a synchronous
// heartbeat on each new one first, then the old ones close (late closes of
// a stale session must not evict the broker).
func (b *fakeBroker) reconnect() {
	b.t.Helper()
	b.mu.Lock()
	old := b.clients
	b.clients = map[string]*remoting.Client{}
	b.mu.Unlock()
	b.heartbeatSync()
	for _, c := range old {
		_ = c.Close()
	}
}

// decodeReplicas parses a 1006 body.
func decodeReplicas(body []byte) (controller.BrokerReplicasInfo, error) {
	return controller.DecodeBrokerReplicasInfo(body)
}

// invoke sends req to addr and waits for the reply.
func (b *fakeBroker) invoke(addr string, code int32, ext map[string]string, body []byte) (*remoting.Command, error) {
	c := b.client(addr)
	if c == nil {
		return nil, fmt.Errorf("controller %s unreachable", addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
	defer cancel()
	return c.Invoke(ctx, remoting.NewRequest(code, ext, body))
}

// findLeader is §6 step 2: the first 1005 answer naming a leader.
func (b *fakeBroker) findLeader() string {
	for _, addr := range b.ctlAddrs {
		resp, err := b.invoke(addr, remoting.ControllerGetMetadataInfo, nil, nil)
		if err == nil && resp.ExtFields["controllerLeaderAddress"] != "" {
			return resp.ExtFields["controllerLeaderAddress"]
		}
	}
	return ""
}

// call sends a leader-gated request, re-discovering the leader on 2007 or
// a broken connection, until waitLimit.
func (b *fakeBroker) call(code int32, ext map[string]string, body []byte) *remoting.Command {
	b.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		b.mu.Lock()
		leader := b.leader
		b.mu.Unlock()
		if leader == "" {
			leader = b.findLeader()
		}
		if leader != "" {
			resp, err := b.invoke(leader, code, ext, body)
			if err == nil && resp.Code != remoting.ControllerNotLeader {
				b.mu.Lock()
				b.leader = leader
				b.mu.Unlock()
				return resp
			}
		}
		b.mu.Lock()
		b.leader = ""
		b.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	b.t.Fatalf("broker %s: no leader answered code %d", b.addr, code)
	return nil
}

// applyID is §6 step 3: 1012, then 1013 with the proposed id.
func (b *fakeBroker) applyID() int64 {
	b.t.Helper()
	ext := map[string]string{"clusterName": b.cluster, "brokerName": b.name}
	resp := b.call(remoting.ControllerGetNextBrokerID, ext, nil)
	require.Equal(b.t, remoting.Success, resp.Code, resp.Remark)
	id, err := strconv.ParseInt(resp.ExtFields["nextBrokerId"], 10, 64)
	require.NoError(b.t, err)
	apply := map[string]string{"clusterName": b.cluster, "brokerName": b.name, "appliedBrokerId": strconv.FormatInt(id, 10),
		"registerCheckCode": b.addr + ";" + strconv.FormatInt(time.Now().UnixMilli(), 10)}
	resp = b.call(remoting.ControllerApplyBrokerID, apply, nil)
	require.Equal(b.t, remoting.Success, resp.Code, resp.Remark)
	b.mu.Lock()
	b.id = id
	b.mu.Unlock()
	return id
}

// ident returns the broker's id as text.
func (b *fakeBroker) ident() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strconv.FormatInt(b.id, 10)
}

// register is §6 step 4 (1003).
func (b *fakeBroker) register() *remoting.Command {
	b.t.Helper()
	ext := map[string]string{"clusterName": b.cluster, "brokerName": b.name, "brokerId": b.ident(), "brokerAddress": b.addr}
	resp := b.call(remoting.ControllerRegisterBroker, ext, nil)
	require.Equal(b.t, remoting.Success, resp.Code, resp.Remark)
	return resp
}

// elect is §6 step 6 (1002, broker trigger).
func (b *fakeBroker) elect() *remoting.Command {
	ext := map[string]string{"clusterName": b.cluster, "brokerName": b.name, "brokerId": b.ident(),
		"designateElect": "false", "invokeTime": strconv.FormatInt(time.Now().UnixMilli(), 10)}
	return b.call(remoting.ControllerElectMaster, ext, nil)
}

// alter is §6 step 8 (1001) as master with the given epochs.
func (b *fakeBroker) alter(masterEpoch string, ssEpoch int, ids ...int64) *remoting.Command {
	ext := map[string]string{"brokerName": b.name, "masterBrokerId": b.ident(), "masterEpoch": masterEpoch, "invokeTime": "0"}
	body := fmt.Sprintf(`{"syncStateSet":%s,"syncStateSetEpoch":%d}`, idList(ids), ssEpoch)
	return b.call(remoting.ControllerAlterSyncStateSet, ext, []byte(body))
}

func idList(ids []int64) string {
	s := "["
	for i, id := range ids {
		if i > 0 {
			s += ","
		}
		s += strconv.FormatInt(id, 10)
	}
	return s + "]"
}

// replicaInfo is the periodic 1004 of §6 step 7.
func (b *fakeBroker) replicaInfo() *remoting.Command {
	return b.call(remoting.ControllerGetReplicaInfo, map[string]string{"brokerName": b.name}, nil)
}

func (b *fakeBroker) heartbeatExt() map[string]string {
	return map[string]string{"clusterName": b.cluster, "brokerAddr": b.addr, "brokerName": b.name,
		"brokerId": b.ident(), "epoch": "0", "maxOffset": "100", "confirmOffset": "100",
		"heartbeatTimeoutMills": strconv.FormatInt(b.hbTimeoutMs, 10), "electionPriority": "2147483647"}
}

// heartbeatSync sends 904 to every controller and waits for each reply, so
// that every reachable controller has recorded it on return.
func (b *fakeBroker) heartbeatSync() {
	b.t.Helper()
	for _, addr := range b.ctlAddrs {
		if resp, err := b.invoke(addr, remoting.BrokerHeartbeat, b.heartbeatExt(), nil); err == nil {
			require.Equal(b.t, remoting.Success, resp.Code, resp.Remark)
		}
	}
	b.mu.Lock()
	b.lastBeat = time.Now()
	b.mu.Unlock()
}

// heartbeatOneway is one round of §6 step 7's oneway 904 to every controller.
func (b *fakeBroker) heartbeatOneway() {
	ext := b.heartbeatExt()
	for _, addr := range b.ctlAddrs {
		if c := b.client(addr); c != nil {
			_ = c.InvokeOneway(remoting.NewRequest(remoting.BrokerHeartbeat, ext, nil))
		}
	}
	b.mu.Lock()
	b.lastBeat = time.Now()
	b.mu.Unlock()
}

// startHeartbeats beats every interval until stopHeartbeats.
func (b *fakeBroker) startHeartbeats(interval time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.hbStop != nil {
		return
	}
	stop, done := make(chan struct{}), make(chan struct{})
	b.hbStop, b.hbDone = stop, done
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			b.heartbeatOneway()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
}

// stopHeartbeats stops the loop and returns when the last beat was sent.
func (b *fakeBroker) stopHeartbeats() time.Time {
	b.mu.Lock()
	stop, done := b.hbStop, b.hbDone
	b.hbStop, b.hbDone = nil, nil
	b.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lastBeat
}

// waitNotice waits for a 1008 naming masterEpoch.
func (b *fakeBroker) waitNotice(masterEpoch string) (notice, error) {
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	for {
		select {
		case n := <-b.notices:
			if n.req.ExtFields["masterEpoch"] == masterEpoch {
				return n, nil
			}
		case <-timer.C:
			return notice{}, errors.New("no NOTIFY_BROKER_ROLE_CHANGED for masterEpoch " + masterEpoch)
		}
	}
}
