//go:build embedded_controller

package controller

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/internal/lograte/logratetest"
	"github.com/rmqgo/nameserver/remoting"
)

// TestAttackStrangerLogLinesAreBounded: on a Controller, every
// log line a stranger can cause at will goes through the rate limiter:
// garbage and foreign RPCs on the Raft port (hashicorp/raft logs "failed
// to decode incoming command" at ERROR for each), each request code with
// garbage fields, heartbeats from connections that then close, and
// unsigned or badly signed requests with ACL on. Each path is driven 500
// times; no message is written more than lograte.Burst times per second
// of the run. It prints the lines per path and per message.
func TestAttackStrangerLogLinesAreBounded(t *testing.T) {
	logger, lines := logratetest.Logger("controller")
	open := startRealController(t, logger.Named("open"))
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(path, []byte("accounts: [{accessKey: admin01, secretKey: adminSecret, admin: true}]\n"), 0o600))
	guarded := startRealController(t, logger.Named("guarded"), "aclEnable=true", "aclConfigPath="+path)
	raftAddr := open.Node().Addr()
	logratetest.Drive(t, lines, 500, []logratetest.Path{
		{Name: "garbage on the raft port", Run: func(t *testing.T, n int) {
			logratetest.Conns(t, raftAddr, n, []byte("\x09GARBAGE\r\n\r\n"))
		}},
		{Name: "undecodable raft rpc", Run: func(t *testing.T, n int) {
			logratetest.Conns(t, raftAddr, n, []byte{0, 0xc1, 0xc1, 0xc1})
		}},
		{Name: "vote request from a stranger", Run: strangerVotes(open)},
		{Name: "each request code with garbage fields", Run: garbageRequests(open.Addr())},
		{Name: "heartbeat, then the connection closes", Run: closedHeartbeats(open.Addr())},
		{Name: "unsigned request (acl on)", Run: requests(guarded.Addr(), func(int) *remoting.Command {
			return remoting.NewRequest(remoting.ControllerGetNextBrokerID, map[string]string{"clusterName": "c", "brokerName": "b"}, nil)
		})},
		{Name: "badly signed request (acl on)", Run: requests(guarded.Addr(), func(i int) *remoting.Command {
			req := remoting.NewRequest(remoting.ControllerGetNextBrokerID, map[string]string{"clusterName": "c", "brokerName": "b"}, nil)
			acl.Sign(req, fmt.Sprintf("stranger%06d", i), "guessed", "")
			return req
		})},
	})
}

// startRealController starts a one-node Controller on loopback with a
// real Raft TCP transport, logging to logger, and waits until it leads.
func startRealController(t *testing.T, logger hclog.Logger, props ...string) *Controller {
	t.Helper()
	var c *Controller
	require.Eventually(t, func() bool { // a port free a moment ago may be taken
		lns, peers := listenPeers(t, []string{"n0"})
		cfg := testControllerConfig(t, "n0", peers, "n0-"+freeRaftAddr(t), props...)
		var err error
		if c, err = New(cfg, logger, WithListener(lns[0])); err != nil {
			return false
		}
		require.NoError(t, c.Start())
		return true
	}, 10*time.Second, 10*time.Millisecond)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, c.Shutdown(ctx))
	})
	require.Eventually(t, c.Node().IsLeader, 10*time.Second, 10*time.Millisecond)
	return c
}

// strangerVotes asks c for its vote n times, as a node not in its
// configuration, through hashicorp/raft's own transport.
func strangerVotes(c *Controller) func(t *testing.T, n int) {
	return func(t *testing.T, n int) {
		tr, err := raft.NewTCPTransport("127.0.0.1:0", nil, 2, 5*time.Second, io.Discard)
		require.NoError(t, err)
		defer tr.Close()
		for i := range n {
			req := &raft.RequestVoteRequest{RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax,
				ID: []byte("stranger"), Addr: []byte(tr.LocalAddr())},
				Term: 1, LastLogIndex: uint64(i), LastLogTerm: 1}
			var resp raft.RequestVoteResponse
			_ = tr.RequestVote("n0", raft.ServerAddress(c.Node().Addr()), req, &resp)
			require.False(t, resp.Granted)
		}
	}
}

// requests sends n requests made by mk on one connection; each is answered.
func requests(addr string, mk func(i int) *remoting.Command) func(t *testing.T, n int) {
	return func(t *testing.T, n int) {
		c := dialT(t, addr)
		defer c.Close()
		for i := range n {
			_, err := c.Invoke(ctxT(t), mk(i))
			require.NoError(t, err)
		}
	}
}

// garbageRequests sends n/10 requests of each Controller code and of
// unknown codes, with fields and a body that are not what the code reads.
func garbageRequests(addr string) func(t *testing.T, n int) {
	codes := []int32{remoting.ControllerAlterSyncStateSet, remoting.ControllerElectMaster, remoting.ControllerRegisterBroker,
		remoting.ControllerGetReplicaInfo, remoting.ControllerGetMetadataInfo, remoting.ControllerGetSyncStateData,
		remoting.UpdateControllerConfig, remoting.GetControllerConfig, remoting.CleanBrokerData,
		remoting.ControllerGetNextBrokerID, remoting.ControllerApplyBrokerID, remoting.BrokerHeartbeat, 0, 9999, -1}
	garbage := map[string]string{"brokerName": "b\xff", "clusterName": "", "brokerAddr": "not-an-address",
		"brokerId": "x", "masterEpoch": "-1", "epoch": "z", "brokerClusterName": "", "invokeTime": "now"}
	return func(t *testing.T, n int) {
		c := dialT(t, addr)
		defer c.Close()
		for i := range max(n/10, 1) {
			for _, code := range codes {
				ext := make(map[string]string, len(garbage))
				for k, v := range garbage {
					ext[k] = v
				}
				_, err := c.Invoke(ctxT(t), remoting.NewRequest(code, ext, []byte(fmt.Sprintf("{not json %d\x00=\n", i))))
				require.NoError(t, err)
			}
		}
	}
}

// closedHeartbeats sends n heartbeats, each from a new connection that
// closes after its answer.
func closedHeartbeats(addr string) func(t *testing.T, n int) {
	return func(t *testing.T, n int) {
		logratetest.Each(t, n, func(i int) {
			c := dialT(t, addr)
			defer c.Close()
			_, err := c.Invoke(ctxT(t), remoting.NewRequest(remoting.BrokerHeartbeat, map[string]string{
				"clusterName": "c", "brokerName": fmt.Sprintf("hb%d", i), "brokerAddr": fmt.Sprintf("127.0.0.1:%d", 20000+i),
				"brokerId": "1", "epoch": "0", "maxOffset": "0", "electionPriority": "0"}, nil))
			require.NoError(t, err)
		})
	}
}

func dialT(t *testing.T, addr string) *remoting.Client {
	c, err := remoting.Dial(ctxT(t), addr, remoting.ClientOptions{})
	require.NoError(t, err)
	return c
}

// ctxT bounds one request by 30 s: liveness only (a 1009 that applies
// persists the config, with fsyncs; 10 s ran out on a loaded machine).
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
