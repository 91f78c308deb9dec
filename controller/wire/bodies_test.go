package wire

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/fastjson"
)

func TestBodyEncodings(t *testing.T) {
	group := &BrokerMemberGroup{Cluster: "c", BrokerName: "b", BrokerAddrs: map[int64]string{10: "x:10", 2: "x:2"}}
	cases := []struct {
		name string
		got  []byte
		want string
	}{
		{"empty sync-state set", SyncStateSet{}.Encode(), `{"syncStateSet":[],"syncStateSetEpoch":0}`},
		{"sync-state set sorted, unique", SyncStateSet{SyncStateSet: []int64{3, 1, 3}, SyncStateSetEpoch: 7}.Encode(),
			`{"syncStateSet":[1,3],"syncStateSetEpoch":7}`},
		{"member group numeric order", group.Encode(), `{"brokerAddrs":{2:"x:2",10:"x:10"},"brokerName":"b","cluster":"c"}`},
		{"member group without addrs", BrokerMemberGroup{Cluster: "c"}.Encode(), `{"brokerName":"","cluster":"c"}`},
		{"elect body", ElectMasterResponseBody{BrokerMemberGroup: group, SyncStateSet: []int64{2}}.Encode(),
			`{"brokerMemberGroup":{"brokerAddrs":{2:"x:2",10:"x:10"},"brokerName":"b","cluster":"c"},"syncStateSet":[2]}`},
		{"elect body, still-exists shape", ElectMasterResponseBody{SyncStateSet: []int64{1}}.Encode(), `{"syncStateSet":[1]}`},
		{"replicas info without master", BrokerReplicasInfo{ReplicasInfoTable: map[string]ReplicasInfo{"z": {}, "a": {}}}.Encode(),
			`{"replicasInfoTable":{"a":{"inSyncReplicas":[],"masterEpoch":0,"notInSyncReplicas":[],"syncStateSetEpoch":0},` +
				`"z":{"inSyncReplicas":[],"masterEpoch":0,"notInSyncReplicas":[],"syncStateSetEpoch":0}}}`},
		{"escaping", BrokerMemberGroup{Cluster: "q\"\\\n\t\x01/<é\u2028", BrokerName: "b"}.Encode(),
			`{"brokerName":"b","cluster":"q\"\\\n\t\u0001/<é\u2028"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, string(c.got))
			require.True(t, json.Valid(fastjson.QuoteNumericKeys(c.got)))
		})
	}
}

func TestLenientDecoders(t *testing.T) {
	body := `{"brokerMemberGroup":{"brokerAddrs":{1:"127.0.0.1:30911", 2 :"127.0.0.1:30912"},"brokerName":"broker-a","cluster":"DefaultCluster"},"syncStateSet":[2]}`
	e, err := DecodeElectMasterResponseBody([]byte(body))
	require.NoError(t, err)
	require.Equal(t, map[int64]string{1: "127.0.0.1:30911", 2: "127.0.0.1:30912"}, e.BrokerMemberGroup.BrokerAddrs)
	require.Equal(t, []int64{2}, e.SyncStateSet)

	g, err := DecodeBrokerMemberGroup([]byte(`{"brokerAddrs":{"3":"a",-1:"b"},"brokerName":"n","cluster":"c"}`))
	require.NoError(t, err)
	require.Equal(t, BrokerMemberGroup{Cluster: "c", BrokerName: "n", BrokerAddrs: map[int64]string{3: "a", -1: "b"}}, g)
	require.Equal(t, `{"brokerAddrs":{-1:"b",3:"a"},"brokerName":"n","cluster":"c"}`, string(g.Encode()))
	_, err = DecodeBrokerMemberGroup([]byte(`{"brokerAddrs":{"x":"a"}}`))
	require.Error(t, err)

	ss, err := DecodeSyncStateSet([]byte(`{"syncStateSetEpoch":4}`))
	require.NoError(t, err)
	require.Equal(t, SyncStateSet{SyncStateSet: []int64{}, SyncStateSetEpoch: 4}, ss)
	_, err = DecodeSyncStateSet([]byte(`{"syncStateSet":["x"]}`))
	require.Error(t, err)

	orig := BrokerReplicasInfo{ReplicasInfoTable: map[string]ReplicasInfo{"b": {MasterBrokerID: ptr(int64(1)),
		MasterAddress: ptr("a:1"), MasterEpoch: 2, SyncStateSetEpoch: 3,
		InSyncReplicas:    []ReplicaIdentity{{Alive: true, BrokerAddress: "a:1", BrokerID: 1, BrokerName: "b"}},
		NotInSyncReplicas: []ReplicaIdentity{}}}}
	back, err := DecodeBrokerReplicasInfo(orig.Encode())
	require.NoError(t, err)
	require.Equal(t, orig, back)

	names, err := DecodeBrokerNames([]byte(`["broker-a","nope"]`))
	require.NoError(t, err)
	require.Equal(t, []string{"broker-a", "nope"}, names)
}

func TestRequestDecoders(t *testing.T) {
	_, err := DecodeElectMasterRequest(map[string]string{"clusterName": "c", "brokerName": "b", "designateElect": "false"})
	require.ErrorIs(t, err, ErrBadRequest)
	require.EqualError(t, err, "the custom field <brokerId> is null")

	req, err := DecodeElectMasterRequest(nil)
	require.NoError(t, err, "no extFields at all: no checks, Java defaults")
	require.Equal(t, NoBrokerID, req.BrokerID)

	req, err = DecodeElectMasterRequest(map[string]string{"clusterName": "c", "brokerName": "b", "brokerId": "x",
		"designateElect": "TRUE"})
	require.NoError(t, err)
	require.Equal(t, ElectMasterRequest{ClusterName: "c", BrokerName: "b", BrokerID: NoBrokerID, DesignateElect: true}, req)

	_, err = DecodeCleanBrokerDataRequest(map[string]string{"clusterName": "c"})
	require.ErrorIs(t, err, ErrBadRequest)

	hb, err := DecodeBrokerHeartbeatRequest(map[string]string{"clusterName": "c", "brokerName": "b", "brokerAddr": "a",
		"brokerId": "3", "epoch": "bad", "heartbeatTimeoutMills": "3000"})
	require.NoError(t, err)
	require.Equal(t, int64(3), *hb.BrokerID)
	require.Nil(t, hb.Epoch)
	require.Equal(t, int64(3000), *hb.HeartbeatTimeoutMillis)
	_, err = DecodeBrokerHeartbeatRequest(map[string]string{"clusterName": "c"})
	require.ErrorIs(t, err, ErrBadRequest)

	alter, err := DecodeAlterSyncStateSetRequest(map[string]string{"brokerName": "b", "masterBrokerId": "1"},
		[]byte(`{"syncStateSet":[2,1],"syncStateSetEpoch":3}`))
	require.NoError(t, err)
	require.Equal(t, AlterSyncStateSetRequest{BrokerName: "b", MasterBrokerID: 1, MasterEpoch: -1,
		SyncStateSet: SyncStateSet{SyncStateSet: []int64{1, 2}, SyncStateSetEpoch: 3}}, alter)
	_, err = DecodeAlterSyncStateSetRequest(map[string]string{}, []byte(`nope`))
	require.ErrorIs(t, err, ErrBadRequest)
	require.ErrorContains(t, err, "decode SyncStateSet body: ")
}

func ptr[T any](v T) *T { return &v }

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

// The Controller's bodies are written by fastjson's default serializer
// (RemotingSerializable.encode): uppercase hex, U+007F..U+009F escaped.
func TestJSONStringEscapesLikeFastjson(t *testing.T) {
	require.Equal(t, `{1:"\u001F\u007Fa\u0085\u2028"}`, string(appendAddrs(nil, map[int64]string{1: "\x1f\x7fa\u0085\u2028"})))
}
