//go:build embedded_controller

package controller

import (
	"context"
	"net"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/sched"
	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/raftstore/raftstoretest"
	"github.com/rmqgo/nameserver/remoting"
)

// gatedCodes are the leader-only codes with a request each follower must
// refuse with 2007 (headers complete, so decoding succeeds).
var gatedCodes = map[int32]map[string]string{
	remoting.ControllerAlterSyncStateSet: {"brokerName": "b", "masterBrokerId": "1", "masterEpoch": "1"},
	remoting.ControllerElectMaster:       {"clusterName": "c", "brokerName": "b", "brokerId": "1", "designateElect": "false"},
	remoting.ControllerRegisterBroker:    {"clusterName": "c", "brokerName": "b", "brokerId": "1", "brokerAddress": "x:1"},
	remoting.ControllerGetReplicaInfo:    {"brokerName": "b"},
	remoting.ControllerGetSyncStateData:  nil,
	remoting.CleanBrokerData:             {"brokerName": "b", "clusterName": "c"},
	remoting.ControllerGetNextBrokerID:   {"clusterName": "c", "brokerName": "b"},
	remoting.ControllerApplyBrokerID:     {"clusterName": "c", "brokerName": "b", "appliedBrokerId": "1", "registerCheckCode": "x:1;1"},
}

func TestFollowerAnswersNotLeader(t *testing.T) {
	ic := newCluster(t, 3)
	leader, follower := ic.leader(t), ic.follower(t)
	for code, ext := range gatedCodes {
		var body []byte
		if code == remoting.ControllerAlterSyncStateSet {
			body = []byte(`{"syncStateSet":[1],"syncStateSetEpoch":0}`)
		}
		resp := invoke(t, follower.Addr(), code, ext, body)
		require.Equal(t, remoting.ControllerNotLeader, resp.Code, "code %d", code)
		require.Equal(t, "The controller is not in leader state", resp.Remark, "code %d", code)
		require.Nil(t, resp.ExtFields, "code %d: 2007 carries no header", code)
		require.Empty(t, resp.Body, "code %d", code)
	}
	resp := invoke(t, leader.Addr(), remoting.ControllerGetNextBrokerID, gatedCodes[remoting.ControllerGetNextBrokerID], nil)
	require.Equal(t, codeSuccess, resp.Code)
	require.Equal(t, "1", resp.ExtFields["nextBrokerId"])
}

func TestDecodeErrorWinsOverLeaderGate(t *testing.T) {
	ic := newCluster(t, 3)
	resp := invoke(t, ic.follower(t).Addr(), remoting.ControllerElectMaster,
		map[string]string{"clusterName": "c", "brokerName": "b", "brokerId": "1"}, nil)
	require.Equal(t, codeSystemError, resp.Code)
	require.Equal(t, "the custom field <designateElect> is null", resp.Remark)
}

// TestMetadataFromAnyNodePointsAtLeaderRemotingAddress: every node's 1005
// names the leader's id and remoting address. The in-memory cluster's 50 ms
// lease can move the leadership under load between finding the leader and
// asking the nodes (1 run in 60 with the process paused now and then), so a
// round that disagrees is asked again for up to 10 s; a wrong answer that
// persists still fails.
func TestMetadataFromAnyNodePointsAtLeaderRemotingAddress(t *testing.T) {
	ic := newCluster(t, 3)
	var peers string
	for _, id := range ic.cluster.IDs() {
		peers += id + ":" + ic.ctls[id].Addr() + ";"
	}
	var want, got map[string]map[string]string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		want, got = metadataRound(t, ic, peers)
		if reflect.DeepEqual(want, got) || time.Now().After(deadline) {
			break
		}
		t.Logf("leadership moved during the round, asking again: want %v, got %v", want, got)
	}
	require.Equal(t, want, got)
}

// metadataRound finds the ready leader, then asks every node for 1005 and
// returns, by node id, the answers expected from that leader and those
// given (version fields left out: clusterversion_test.go).
func metadataRound(t *testing.T, ic *inmemControllers, peers string) (want, got map[string]map[string]string) {
	t.Helper()
	leader := ic.leader(t)
	want, got = map[string]map[string]string{}, map[string]map[string]string{}
	for id, ctl := range ic.ctls {
		resp := invoke(t, ctl.Addr(), remoting.ControllerGetMetadataInfo, nil, nil)
		require.Equal(t, codeSuccess, resp.Code)
		require.Equal(t, "2", resp.ExtFields[extFormatVersion])
		for _, k := range []string{extBinaryVersion, extFormatVersion, extClusterVersion} {
			delete(resp.ExtFields, k)
		}
		got[id] = resp.ExtFields
		want[id] = map[string]string{
			"controllerLeaderId":      leader.Node().ID(),
			"controllerLeaderAddress": leader.Addr(),
			"isLeader":                strconv.FormatBool(ctl == leader),
			"peers":                   peers,
			"group":                   "group1",
		}
	}
	return want, got
}

func TestLeaderLossClosesGate(t *testing.T) {
	ic := newCluster(t, 3)
	old := ic.leader(t)
	ic.cluster.Partition(old.Node().ID())
	next := ic.leader(t)
	require.NotSame(t, old, next)
	require.Eventually(t, func() bool { return !old.IsReadyLeader() }, 5*time.Second, 5*time.Millisecond)
	ext := gatedCodes[remoting.ControllerGetNextBrokerID]
	require.Equal(t, remoting.ControllerNotLeader, invoke(t, old.Addr(), remoting.ControllerGetNextBrokerID, ext, nil).Code)
	require.Equal(t, codeSuccess, invoke(t, next.Addr(), remoting.ControllerGetNextBrokerID, ext, nil).Code)
	require.Eventually(t, func() bool {
		_, ready := ic.obs[old.Node().ID()].snapshot()
		return len(ready) >= 2 && ready[0] && !ready[1]
	}, 5*time.Second, 5*time.Millisecond, "observer saw ready, then not ready")
	ic.cluster.Heal()
}

func TestConfigUpdateAndGetOnAnyNode(t *testing.T) {
	ic := newCluster(t, 3)
	follower := ic.follower(t)
	resp := invoke(t, follower.Addr(), remoting.UpdateControllerConfig, nil, []byte("notifyBrokerRoleChanged=false\n"))
	require.Equal(t, codeSuccess, resp.Code, resp.Remark)
	require.False(t, follower.config().NotifyBrokerRoleChanged)
	persisted, err := os.ReadFile(follower.config().ConfigStorePath)
	require.NoError(t, err)
	require.Contains(t, string(persisted), "notifyBrokerRoleChanged=false")

	get := invoke(t, follower.Addr(), remoting.GetControllerConfig, nil, nil)
	require.Equal(t, codeSuccess, get.Code)
	require.Contains(t, string(get.Body), "notifyBrokerRoleChanged=false\n")
	require.Contains(t, string(get.Body), "isProcessReadEvent=false\n")

	for body, want := range map[string]struct {
		code   int32
		remark string
	}{
		"configStorePath=/elsewhere": {codeNoPermission, "Can not update config in black list."},
		"controllerStorePath=/tmp/x": {codeNoPermission, "Can not update config in black list."},
		"":                           {codeSuccess, ""},
	} {
		resp := invoke(t, follower.Addr(), remoting.UpdateControllerConfig, nil, []byte(body))
		require.Equal(t, want.code, resp.Code, body)
		require.Equal(t, want.remark, resp.Remark, body)
	}
}

func TestUnregisteredCodesAreNotSupported(t *testing.T) {
	ic := newCluster(t, 1)
	for _, code := range []int32{remoting.BrokerCloseChannelRequest, remoting.RaftBrokerHeartBeatEventRequest,
		remoting.GetBrokerEpochCache, remoting.NotifyBrokerRoleChanged} {
		resp := invoke(t, ic.leader(t).Addr(), code, nil, nil)
		require.Equal(t, codeRequestCodeNotSupported, resp.Code, "code %d", code)
	}
}

func TestProcessReadEventAppendsBarrier(t *testing.T) {
	ic := newCluster(t, 3, withProps("processReadEvent=true"))
	leader := ic.leader(t)
	before := leader.Node().Raft().LastIndex()
	resp := invoke(t, leader.Addr(), remoting.ControllerGetNextBrokerID, gatedCodes[remoting.ControllerGetNextBrokerID], nil)
	require.Equal(t, codeSuccess, resp.Code)
	require.Greater(t, leader.Node().Raft().LastIndex(), before, "a read appends an empty entry")
}

func TestNewFailsOnBusyAddressesAndLeavesNothingOpen(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	freeAddr := free.Addr().String()
	require.NoError(t, free.Close())

	// Remoting address taken.
	cfg := testControllerConfig(t, "n0", "n0-"+busy.Addr().String(), "n0-"+freeAddr, "bindAddress=127.0.0.1")
	_, err = New(cfg, hclog.NewNullLogger())
	require.ErrorContains(t, err, "remoting address "+busy.Addr().String())

	// Raft address taken: the remoting listener opened first is closed again.
	cfg = testControllerConfig(t, "n0", "n0-"+freeAddr, "n0-"+busy.Addr().String(), "bindAddress=127.0.0.1")
	_, err = New(cfg, hclog.NewNullLogger())
	require.ErrorContains(t, err, "raft address "+busy.Addr().String())
	ln, err := net.Listen("tcp", freeAddr)
	require.NoError(t, err, "the remoting port was released")
	require.NoError(t, ln.Close())
}

func TestInvalidConfigIsRejected(t *testing.T) {
	cfg := testControllerConfig(t, "n9", "n0-127.0.0.1:1", "n0-127.0.0.1:2")
	_, err := New(cfg, hclog.NewNullLogger())
	require.ErrorContains(t, err, "controllerDLegerSelfId (n9) is not an id of controllerDLegerPeers")
}

// TestSchedulerRefusalsAreAnswered: a stopped scheduler is answered 2007, a
// full one 2 with Java's overload remark.
func TestSchedulerRefusalsAreAnswered(t *testing.T) {
	code, _ := responseCode(schedError(sched.ErrStopped))
	require.Equal(t, remoting.ControllerNotLeader, code)
	code, remark := responseCode(schedError(sched.ErrFull))
	require.Equal(t, codeSystemBusy, code)
	require.True(t, strings.HasPrefix(remark, "[OVERLOAD]"))
}

// TestOwnElectionBoundIsTheSetBound: the leader admits one own election
// per broker set there may be (one loop runs per stored set), past the
// bound of request tasks.
func TestOwnElectionBoundIsTheSetBound(t *testing.T) {
	require.Equal(t, config.MaxControllerBrokerSets, maxOwnElections)
	require.Greater(t, maxOwnElections, schedulerQueueSize)
}

// TestHeartbeatRefusalsAreAnswered: a refused heartbeat is answered 2005
// with the refusal as the remark.
func TestHeartbeatRefusalsAreAnswered(t *testing.T) {
	m := liveness.New(liveness.Options{Logger: testLogger(t)})
	code, remark := responseCode(m.OnHeartbeat(wire.BrokerHeartbeatRequest{ClusterName: "c", BrokerName: "b", BrokerAddr: "a"}, 1))
	require.Equal(t, int32(2005), code)
	require.Equal(t, "Heart beat with empty brokerId", remark)
}

func TestShutdownBeforeStartReleasesListeners(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	raftLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	raftAddr := raftLn.Addr().String()
	require.NoError(t, raftLn.Close())
	cfg := testControllerConfig(t, "n0", "n0-"+ln.Addr().String(), "n0-"+raftAddr)
	ctl, err := New(cfg, hclog.NewNullLogger(), WithListener(ln))
	require.NoError(t, err)
	require.NoError(t, ctl.Shutdown(context.Background()))
	for _, addr := range []string{ln.Addr().String(), raftAddr} {
		l, err := net.Listen("tcp", addr)
		require.NoError(t, err, "%s released", addr)
		require.NoError(t, l.Close())
	}
}

// brokerListener is a broker's own remoting port that records 1008.
func brokerListener(t *testing.T) (string, <-chan *remoting.Command) {
	t.Helper()
	got := make(chan *remoting.Command, 8)
	srv := remoting.NewServer(remoting.ServerConfig{})
	srv.Register(remoting.NotifyBrokerRoleChanged, func(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		got <- req
		return nil, nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String(), got
}

func TestNotifierDeliversOnewayRoleChange(t *testing.T) {
	addr, got := brokerListener(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	obs := newRecordingObserver()
	n := newNotifier(ctx, raftstoretest.TestLogger(t, "notify"), obs, 0)
	entry := roleChangeNotifyEntry{MasterAddress: "10.0.0.2:10911", MasterBrokerID: 2, MasterEpoch: 3,
		SyncStateSetEpoch: 4, SyncStateSet: []int64{2}}
	n.send(addr, entry)
	select {
	case req := <-got:
		require.True(t, req.IsOneway())
		require.Equal(t, map[string]string{"masterAddress": "10.0.0.2:10911", "masterBrokerId": "2",
			"masterEpoch": "3", "syncStateSetEpoch": "4"}, req.ExtFields)
		require.JSONEq(t, `{"syncStateSet":[2],"syncStateSetEpoch":4}`, string(req.Body))
	case <-time.After(5 * time.Second):
		t.Fatal("no 1008 received")
	}
	n.wait()
	require.Equal(t, []string{addr + "@3:<nil>"}, obs.notified)

	n.send(addr, entry) // refused after wait
	n.wait()
	require.Len(t, obs.notified, 1)
}

func TestNotifierReportsUnreachableBroker(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	obs := newRecordingObserver()
	n := newNotifier(context.Background(), raftstoretest.TestLogger(t, "notify"), obs, 0)
	n.send(addr, roleChangeNotifyEntry{MasterBrokerID: 1, MasterEpoch: 1})
	n.wait()
	require.Len(t, obs.notified, 1)
	require.Contains(t, obs.notified[0], "dial")
}

func TestMetricsSources(t *testing.T) {
	ic := newCluster(t, 3)
	leader := ic.leader(t)
	apply := gatedCodes[remoting.ControllerApplyBrokerID]
	require.Equal(t, codeSuccess, invoke(t, leader.Addr(), remoting.ControllerApplyBrokerID, apply, nil).Code)
	elect := map[string]string{"clusterName": "c", "brokerName": "b", "brokerId": "1", "designateElect": "false"}
	require.Equal(t, codeSuccess, invoke(t, leader.Addr(), remoting.ControllerElectMaster, elect, nil).Code)
	require.Equal(t, map[string]int32{"b": 1}, leader.MasterEpochs())
	stats := leader.RaftStats()
	require.Equal(t, "Leader", stats["state"])
	require.Equal(t, leader.Node().ID(), stats["leader_id"])
	elections, _ := ic.obs[leader.Node().ID()].snapshot()
	require.Equal(t, []string{"broker:0"}, elections)
}
