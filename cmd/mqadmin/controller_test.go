package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/remoting"
)

// fakePair is a follower naming a leader, both fake.
func fakePair(t *testing.T) (follower, leader *fakeController) {
	follower, leader = newFakeController(t), newFakeController(t)
	follower.setLeader(leader.addr)
	return follower, leader
}

func TestGetControllerMetaData(t *testing.T) {
	t.Parallel()
	fc := newFakeController(t)
	out := requireOK(t, mqadmin(t, "getControllerMetaData", "-a", fc.addr))
	want := fmt.Sprintf("\n#ControllerGroup\tgroup1\n#ControllerLeaderId\tn0\n#ControllerLeaderAddress\t%s\n#Peer:\tn0:%s\n", fc.addr, fc.addr)
	require.Equal(t, want, out)
	fc.setLeader("")
	out = requireOK(t, mqadmin(t, "getControllerMetaData", "-a", nsList(closedAddr(t), fc.addr)))
	require.Contains(t, out, "#ControllerLeaderAddress\tnull\n")
	var md admin.ControllerMetadata
	require.NoError(t, json.Unmarshal([]byte(requireOK(t, mqadmin(t, "getControllerMetaData", "-a", fc.addr, "--json"))), &md))
	require.Equal(t, "group1", md.Group)
}

func TestControllerConfig(t *testing.T) {
	t.Parallel()
	a, b := newFakeController(t), newFakeController(t)
	out := requireOK(t, mqadmin(t, "getControllerConfig", "-a", nsList(a.addr, b.addr)))
	require.Contains(t, out, "============"+b.addr+"============\n")
	require.Contains(t, out, fmt.Sprintf("%-50s=  %s\n", "controllerDLegerGroup", "group1"))

	out = requireOK(t, mqadmin(t, "updateControllerConfig", "-a", nsList(a.addr, b.addr), "-k", "enableElectUncleanMaster", "-v", "true"))
	require.Equal(t, fmt.Sprintf("update controller config success![%s, %s]\nenableElectUncleanMaster : true\n", a.addr, b.addr), out)
	for _, fc := range []*fakeController{a, b} {
		reqs := fc.received(remoting.UpdateControllerConfig)
		require.Len(t, reqs, 1)
		require.Equal(t, "enableElectUncleanMaster=true\n", string(reqs[0].Body))
	}
	r := mqadmin(t, "updateControllerConfig", "-a", a.addr, "-k", "configStorePath", "-v", "/x")
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.errOut, "code 16: Can not update config in black list.")
}

func TestGetSyncStateSetAsksTheLeader(t *testing.T) {
	t.Parallel()
	follower, leader := fakePair(t)
	out := requireOK(t, mqadmin(t, "getSyncStateSet", "-a", follower.addr, "-b", "broker-a"))
	require.Equal(t, "\n#brokerName\tbroker-a\n#MasterBrokerId\t1\n#MasterAddr\t127.0.0.1:30911\n#MasterEpoch\t1\n#SyncStateSetEpoch\t2\n#SyncStateSetNums\t2\n"+
		"\nInSyncReplica:\tReplicaIdentity{brokerName='broker-a', brokerId=1, brokerAddress='127.0.0.1:30911', alive=true}\n"+
		"\nInSyncReplica:\tReplicaIdentity{brokerName='broker-a', brokerId=2, brokerAddress='127.0.0.1:30912', alive=true}\n", out)
	reqs := leader.received(remoting.ControllerGetSyncStateData)
	require.Len(t, reqs, 1)
	require.JSONEq(t, `["broker-a"]`, string(reqs[0].Body))
	require.Empty(t, follower.received(remoting.ControllerGetSyncStateData))

	ns := startNS(t)
	startBroker(t, topicBroker("broker-a"), ns)
	startBroker(t, topicBroker("broker-b"), ns)
	requireOK(t, mqadmin(t, "getSyncStateSet", "-a", leader.addr, "-c", "DefaultCluster", "-n", ns))
	reqs = leader.received(remoting.ControllerGetSyncStateData)
	require.JSONEq(t, `["broker-a","broker-b"]`, string(reqs[len(reqs)-1].Body))

	leader.setSyncBody(noMasterSyncStateData)
	out = requireOK(t, mqadmin(t, "getSyncStateSet", "-a", leader.addr, "-b", "broker-a"))
	require.Contains(t, out, "#MasterBrokerId\tnull\n#MasterAddr\tnull\n")
	require.Contains(t, out, "NotInSyncReplica:\tReplicaIdentity{brokerName='broker-a', brokerId=1, brokerAddress='127.0.0.1:30911', alive=false}")
}

func TestElectMaster(t *testing.T) {
	t.Parallel()
	follower, leader := fakePair(t)
	out := requireOK(t, mqadmin(t, "electMaster", "-a", follower.addr, "-c", "DefaultCluster", "-bn", "broker-a", "-b", "2"))
	require.Equal(t, "\n#ClusterName\tDefaultCluster\n#BrokerName\tbroker-a\n#BrokerMasterAddr\t127.0.0.1:30912\n#MasterEpoch\t2\n#SyncStateSetEpoch\t3\n"+
		"\t#Broker\t1\t127.0.0.1:30911\n\t#Broker\t2\t127.0.0.1:30912\n", out)
	reqs := leader.received(remoting.ControllerElectMaster)
	require.Len(t, reqs, 1)
	for k, v := range map[string]string{"clusterName": "DefaultCluster", "brokerName": "broker-a", "brokerId": "2", "designateElect": "true"} {
		require.Equal(t, v, reqs[0].ExtFields[k], k)
	}
	require.NotEmpty(t, reqs[0].ExtFields["invokeTime"])

	var res struct{ Result admin.ElectResult }
	require.NoError(t, json.Unmarshal([]byte(requireOK(t, mqadmin(t, "electMaster", "-a", leader.addr, "-c", "DefaultCluster", "-bn", "broker-a", "-b", "2", "--json"))), &res))
	require.Equal(t, map[int64]string{1: "127.0.0.1:30911", 2: "127.0.0.1:30912"}, res.Result.BrokerAddrs)
	require.Equal(t, []int64{2}, res.Result.SyncStateSet)

	r := mqadmin(t, "electMaster", "-a", leader.addr, "-c", "DefaultCluster", "-bn", "nope", "-b", "1")
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.errOut, "code 2010: Broker hasn't been registered")
}

func TestControllerWithoutLeader(t *testing.T) {
	t.Parallel()
	fc := newFakeController(t)
	fc.setLeader("")
	r := mqadmin(t, "electMaster", "-a", fc.addr, "-c", "DefaultCluster", "-bn", "broker-a", "-b", "2")
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.errOut, "the controller has no leader")
	require.Empty(t, fc.received(remoting.ControllerElectMaster))
}

func TestCleanBrokerMetadata(t *testing.T) {
	t.Parallel()
	follower, leader := fakePair(t)
	out := requireOK(t, mqadmin(t, "cleanBrokerMetadata", "-a", follower.addr, "-bn", "broker-a", "-l"))
	require.Equal(t, "clear broker broker-a metadata from controller success! \n", out)
	reqs := leader.received(remoting.CleanBrokerData)
	require.Len(t, reqs, 1)
	require.Equal(t, "true", reqs[0].ExtFields["isCleanLivingBroker"])
	require.NotContains(t, reqs[0].ExtFields, "clusterName")

	r := mqadmin(t, "cleanBrokerMetadata", "-a", leader.addr, "-bn", "broker-a", "-c", "DefaultCluster", "-b", "1")
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.errOut, "code 2009: Broker [broker-a,  1] is still alive, clean up failure")
	reqs = leader.received(remoting.CleanBrokerData)
	require.Equal(t, "1", reqs[1].ExtFields["brokerControllerIdsToClean"])
	require.Equal(t, "DefaultCluster", reqs[1].ExtFields["clusterName"])
}
