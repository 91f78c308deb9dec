package wire

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClientRequests(t *testing.T) {
	elect := ElectMasterRequest{ClusterName: "c", BrokerName: "b", BrokerID: 2, DesignateElect: true, InvokeTime: 9}
	require.Equal(t, map[string]string{"clusterName": "c", "brokerName": "b", "brokerId": "2",
		"designateElect": "true", "invokeTime": "9"}, elect.ExtFields())
	back, err := DecodeElectMasterRequest(elect.ExtFields())
	require.NoError(t, err)
	require.Equal(t, elect, back)

	clean := CleanBrokerDataRequest{BrokerName: "b", IsCleanLivingBroker: true, InvokeTime: 9}
	require.Equal(t, map[string]string{"brokerName": "b", "isCleanLivingBroker": "true", "invokeTime": "9"},
		clean.ExtFields())
	clean.ClusterName, clean.BrokerControllerIDsToClean = "c", "1;2"
	cback, err := DecodeCleanBrokerDataRequest(clean.ExtFields())
	require.NoError(t, err)
	require.Equal(t, clean, cback)
}

func TestReplicasInfoViews(t *testing.T) {
	r := ReplicaIdentity{BrokerName: "b", BrokerID: 1, BrokerAddress: "a:1", Alive: true}
	require.Equal(t, "ReplicaIdentity{brokerName='b', brokerId=1, brokerAddress='a:1', alive=true}", r.String())
	require.False(t, ReplicasInfo{}.HasMaster())
	require.False(t, ReplicasInfo{MasterBrokerID: ptr(int64(1)), MasterAddress: ptr("")}.HasMaster())
	require.True(t, ReplicasInfo{MasterBrokerID: ptr(int64(1)), MasterAddress: ptr("a:1")}.HasMaster())
}
