package main

import (
	"cmp"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// Golden controller bodies (controller-java-5.3.jsonl): what a Java 5.3
// DLedger controller answered.
const (
	goldenSyncStateData = `{"replicasInfoTable":{"broker-a":{"inSyncReplicas":[{"alive":true,"brokerAddress":"127.0.0.1:30911","brokerId":1,"brokerName":"broker-a"},{"alive":true,"brokerAddress":"127.0.0.1:30912","brokerId":2,"brokerName":"broker-a"}],"masterAddress":"127.0.0.1:30911","masterBrokerId":1,"masterEpoch":1,"notInSyncReplicas":[],"syncStateSetEpoch":2}}}`
	goldenElectBody     = `{"brokerMemberGroup":{"brokerAddrs":{1:"127.0.0.1:30911",2:"127.0.0.1:30912"},"brokerName":"broker-a","cluster":"DefaultCluster"},"syncStateSet":[2]}`
	// noMasterSyncStateData is a set whose master died with no eligible replica.
	noMasterSyncStateData = `{"replicasInfoTable":{"broker-a":{"inSyncReplicas":[],"masterEpoch":3,"notInSyncReplicas":[{"alive":false,"brokerAddress":"127.0.0.1:30911","brokerId":1,"brokerName":"broker-a"}],"syncStateSetEpoch":4}}}`
	fakeControllerConfig  = "controllerDLegerGroup=group1\ncontrollerDLegerSelfId=n0\nenableElectUncleanMaster=false\n"
	notLeaderRemark       = "The controller is not in leader state"
)

// fakeController answers the admin controller codes with golden replies.
// leaderAddr is what 1005 names ("" = no leader); a node that is not the
// leader answers 2007 to leader-gated codes, as a Java follower does.
type fakeController struct {
	addr string
	srv  *remoting.Server

	mu         sync.Mutex
	leaderAddr string
	advertised string // when set, the leader address 1005 names instead of leaderAddr
	syncBody   string
	requests   []*remoting.Command
}

func newFakeController(t *testing.T) *fakeController {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	fc := &fakeController{addr: ln.Addr().String(), syncBody: goldenSyncStateData}
	fc.leaderAddr = fc.addr
	fc.srv = remoting.NewServer(remoting.ServerConfig{})
	for code, h := range map[int32]remoting.HandlerFunc{
		remoting.ControllerGetMetadataInfo:  fc.metadata,
		remoting.ControllerGetSyncStateData: fc.gated(fc.syncStateData),
		remoting.ControllerElectMaster:      fc.gated(fc.elect),
		remoting.CleanBrokerData:            fc.gated(fc.clean),
		remoting.GetControllerConfig:        fc.config,
		remoting.UpdateControllerConfig:     fc.updateConfig,
	} {
		fc.srv.Register(code, fc.recorded(h))
	}
	go func() { _ = fc.srv.Serve(ln) }()
	t.Cleanup(func() { _ = fc.srv.Close() })
	return fc
}

// setLeader sets the leader address 1005 names.
func (fc *fakeController) setLeader(addr string) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.leaderAddr = addr
}

func (fc *fakeController) setSyncBody(b string) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.syncBody = b
}

// received returns the recorded requests with the given code.
func (fc *fakeController) received(code int32) []*remoting.Command {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	var out []*remoting.Command
	for _, r := range fc.requests {
		if r.Code == code {
			out = append(out, r)
		}
	}
	return out
}

func (fc *fakeController) recorded(h remoting.HandlerFunc) remoting.HandlerFunc {
	return func(c *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		fc.mu.Lock()
		fc.requests = append(fc.requests, req)
		fc.mu.Unlock()
		return h(c, req)
	}
}

func (fc *fakeController) gated(h remoting.HandlerFunc) remoting.HandlerFunc {
	return func(c *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		fc.mu.Lock()
		leader := fc.leaderAddr == fc.addr
		fc.mu.Unlock()
		if !leader {
			return remoting.NewResponse(req, remoting.ControllerNotLeader, notLeaderRemark), nil
		}
		return h(c, req)
	}
}

func (fc *fakeController) metadata(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	resp := remoting.NewResponse(req, remoting.Success, "")
	resp.SetExt("group", "group1")
	resp.SetExt("isLeader", "false")
	resp.SetExt("peers", "n0:"+fc.addr+";")
	if fc.leaderAddr != "" {
		resp.SetExt("controllerLeaderId", "n0")
		resp.SetExt("controllerLeaderAddress", cmp.Or(fc.advertised, fc.leaderAddr))
		resp.SetExt("isLeader", strconv.FormatBool(fc.leaderAddr == fc.addr))
	}
	return resp, nil
}

func (fc *fakeController) syncStateData(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	resp := remoting.NewResponse(req, remoting.Success, "")
	resp.Body = []byte(fc.syncBody)
	return resp, nil
}

func (fc *fakeController) elect(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	if req.ExtFields["brokerName"] != "broker-a" {
		return remoting.NewResponse(req, remoting.ControllerBrokerNeedToBeRegistered, "Broker hasn't been registered"), nil
	}
	resp := remoting.NewResponse(req, remoting.Success, "")
	for k, v := range map[string]string{"masterBrokerId": "2", "masterAddress": "127.0.0.1:30912",
		"syncStateSetEpoch": "3", "masterEpoch": "2"} {
		resp.SetExt(k, v)
	}
	resp.Body = []byte(goldenElectBody)
	return resp, nil
}

func (fc *fakeController) clean(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	if req.ExtFields["isCleanLivingBroker"] != "true" && strings.Contains(req.ExtFields["brokerControllerIdsToClean"], "1") {
		return remoting.NewResponse(req, remoting.ControllerInvalidCleanBrokerMetadata,
			"Broker [broker-a,  1] is still alive, clean up failure"), nil
	}
	return remoting.NewResponse(req, remoting.Success, ""), nil
}

func (fc *fakeController) config(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	resp := remoting.NewResponse(req, remoting.Success, "")
	resp.Body = []byte(fakeControllerConfig)
	return resp, nil
}

func (fc *fakeController) updateConfig(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	if strings.Contains(string(req.Body), "configStorePath") {
		return remoting.NewResponse(req, remoting.NoPermission, "Can not update config in black list."), nil
	}
	return remoting.NewResponse(req, remoting.Success, ""), nil
}
