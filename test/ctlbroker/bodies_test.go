package ctlbroker

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

func TestDecodeBodies(t *testing.T) {
	body := `{"replicasInfoTable":{"b":{"inSyncReplicas":[{"alive":true,"brokerAddress":"a1","brokerId":1,"brokerName":"b"}],` +
		`"masterAddress":"a1","masterBrokerId":1,"masterEpoch":2,"notInSyncReplicas":[{"alive":false,"brokerAddress":"a2","brokerId":2,"brokerName":"b"}],"syncStateSetEpoch":5}}}`
	ri, err := DecodeReplicasInfo([]byte(body), "b")
	require.NoError(t, err)
	require.Equal(t, "master=1 masterEpoch=2 ssEpoch=5 inSync=[1*] notInSync=[2]", replicasText(ri))
	_, err = DecodeReplicasInfo([]byte(body), "other")
	require.ErrorContains(t, err, "no broker set other")
}

func TestReadMaster(t *testing.T) {
	cmd := remoting.NewRequest(remoting.NotifyBrokerRoleChanged, map[string]string{"masterBrokerId": "2",
		"masterAddress": "a2", "masterEpoch": "3", "syncStateSetEpoch": "7"}, nil)
	v, err := ReadMaster(cmd)
	require.NoError(t, err)
	require.Equal(t, "2@a2 masterEpoch=3 ssEpoch=7", v.String())
	cmd.ExtFields["masterEpoch"] = "x"
	_, err = ReadMaster(cmd)
	require.Error(t, err)
}

func TestText(t *testing.T) {
	require.Equal(t, "{0:a 3:c}", groupText(map[int64]string{3: "c", 0: "a"}))
	require.Equal(t, "[1 2]", idText([]int64{1, 2}))
}
