//go:build embedded_controller

package controller

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
)

func applyID(f *testFSM, name string, id int64, code string) ([]event, error) {
	var evs []event
	var err error
	f.fsm.read(func(s *state) {
		_, evs, err = s.ApplyBrokerID(wire.ApplyBrokerIDRequest{ClusterName: "c", BrokerName: name,
			AppliedBrokerID: id, RegisterCheckCode: code})
	})
	if err == nil {
		f.apply(evs...)
	}
	return evs, err
}

func nextID(f *testFSM, name string) int64 {
	var resp wire.GetNextBrokerIDResponse
	f.fsm.read(func(s *state) {
		resp = s.GetNextBrokerID(wire.GetNextBrokerIDRequest{ClusterName: "c", BrokerName: name})
	})
	return resp.NextBrokerID
}

func TestApplyBrokerIDRules(t *testing.T) {
	f := newTestFSM(t)
	steps := []struct {
		name string
		id   int64
		code string
		want int32
		next int64
	}{
		{"fresh set rejects 2", 2, "a:2;1", 2014, 1},
		{"fresh set accepts 1", 1, "a:1;1", 0, 2},
		{"idempotent retry", 1, "a:1;1", 0, 2},
		{"same id, other broker", 1, "a:9;1", 2014, 2},
		{"any unused id", 5, "a:5;1", 0, 3},
		{"next id is a counter, not max+1", 2, "a:2;1", 0, 4},
		{"negative id refused", -1, "a:7;1", 2014, 4},
		{"empty check code refused", 3, "", 2005, 4},
	}
	for _, s := range steps {
		_, err := applyID(f, "b", s.id, s.code)
		require.Equal(t, s.want, codeOf(err), s.name)
		require.Equal(t, s.next, nextID(f, "b"), s.name)
	}
	r, _ := f.state().Replicas("b")
	require.Equal(t, []int64{1, 2, 5}, r.sortedIDs())
	require.Equal(t, brokerIDInfo{Address: "a:5", RegisterCheckCode: "a:5;1"}, r.Brokers[5])
	_, err := applyID(f, "b", 3, "a:3;1")
	_, remark := responseCode(err)
	require.Empty(t, remark)
	_, err = applyID(f, "x", 4, "a:4;1")
	_, remark = responseCode(err)
	require.Equal(t, "Broker-set: x hasn't been registered in controller, but broker try to apply brokerId: 4", remark)
	_, err = applyID(f, "b", 3, "a:33;1")
	_, remark = responseCode(err)
	require.Equal(t, "Fail to apply brokerId: 3 in broker-set: b", remark)
}

func TestRegisterBroker(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 2)
	live := newFakeLive()
	reg := func(id int64, addr string) (wire.RegisterBrokerResponse, []event, error) {
		var resp wire.RegisterBrokerResponse
		var evs []event
		var err error
		f.fsm.read(func(s *state) {
			resp, evs, err = s.RegisterBroker(wire.RegisterBrokerRequest{ClusterName: "c", BrokerName: "b",
				BrokerID: id, BrokerAddress: addr}, live)
		})
		return resp, evs, err
	}
	resp, evs, err := reg(1, addrOf(1))
	require.NoError(t, err)
	require.Empty(t, evs)
	require.Equal(t, map[string]string{"clusterName": "c", "brokerName": "b"}, resp.ExtFields())
	require.Equal(t, `{"syncStateSet":[],"syncStateSetEpoch":0}`, string(resp.BodyBytes()))

	f.apply(electMasterEvent{NewMasterElected: true, BrokerName: "b", NewMasterBrokerID: 1})
	resp, _, _ = reg(2, addrOf(2))
	require.Nil(t, resp.MasterBrokerID, "master not alive: no master fields")
	live.set("c", "b", 1, 0, 0, 0)
	resp, _, _ = reg(2, addrOf(2))
	require.Equal(t, map[string]string{"clusterName": "c", "brokerName": "b", "masterBrokerId": "1",
		"masterAddress": addrOf(1), "masterEpoch": "1", "syncStateSetEpoch": "1"}, resp.ExtFields())

	_, evs, err = reg(2, "new:1")
	require.NoError(t, err)
	require.Equal(t, []event{updateBrokerAddressEvent{ClusterName: "c", BrokerName: "b", BrokerAddress: "new:1", BrokerID: 2,
		Checked: true}}, evs)
	f.apply(evs...)
	r, _ := f.state().Replicas("b")
	require.Equal(t, brokerIDInfo{Address: "new:1", RegisterCheckCode: addrOf(2) + ";1"}, r.Brokers[2])

	_, _, err = reg(7, "x:7")
	_, remark := responseCode(err)
	require.Equal(t, "BrokerId: 7 hasn't been registered in broker-set: b", remark)
	f.fsm.read(func(s *state) { _, _, err = s.RegisterBroker(wire.RegisterBrokerRequest{BrokerName: "z"}, live) })
	code, remark := responseCode(err)
	require.Equal(t, int32(2010), code)
	require.Equal(t, "Broker-set: z hasn't been registered in controller", remark)
}

func TestCleanBrokerData(t *testing.T) {
	cases := []struct {
		name     string
		req      wire.CleanBrokerDataRequest
		elected  bool
		aliveIDs []int64
		code     int32
		remark   string
		left     []int64 // remaining ids; nil = set gone
	}{
		{"blank ids with a master", wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "b"}, true, nil, 2009,
			"Broker b is still alive, clean up failure", []int64{1, 2, 3}},
		{"blank ids without a master wipes the set", wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "b"}, false, nil, 0, "", nil},
		{"bad id list", wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "b", BrokerControllerIDsToClean: "1;x"}, true, nil, 2009,
			`Please set the option <brokerControllerIdsToClean> according to the format, exception: java.lang.NumberFormatException: For input string: "x"`, []int64{1, 2, 3}},
		{"alive id", wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "b", BrokerControllerIDsToClean: "3;2"}, true, []int64{2}, 2009,
			"Broker [b,  2] is still alive, clean up failure", []int64{1, 2, 3}},
		{"dead ids", wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "b", BrokerControllerIDsToClean: "3;2;"}, true, []int64{1}, 0, "", []int64{1}},
		{"living broker flag ignores ids", wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "b", BrokerControllerIDsToClean: "2", IsCleanLivingBroker: true}, true, []int64{1, 2, 3}, 0, "", nil},
		{"unknown set", wire.CleanBrokerDataRequest{ClusterName: "c", BrokerName: "nope", IsCleanLivingBroker: true}, true, nil, 2009,
			"Broker nope is not existed,clean broker data failure.", []int64{1, 2, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newTestFSM(t)
			registerSet(f, "c", "b", 3)
			if c.elected {
				f.apply(electMasterEvent{NewMasterElected: true, BrokerName: "b", NewMasterBrokerID: 1},
					alterSyncStateSetEvent{BrokerName: "b", NewSyncStateSet: []int64{1, 2, 3}})
			}
			live := newFakeLive()
			for _, id := range c.aliveIDs {
				live.set("c", "b", id, 0, 0, 0)
			}
			var resp wire.CleanBrokerDataResponse
			var evs []event
			var err error
			f.fsm.read(func(s *state) { resp, evs, err = s.CleanBrokerData(c.req, live) })
			code, remark := responseCode(err)
			require.Equal(t, c.code, code)
			require.Equal(t, c.remark, remark)
			require.Nil(t, resp.ExtFields())
			f.apply(evs...)
			r, ok := f.state().Replicas("b")
			if c.left == nil {
				require.False(t, ok)
				return
			}
			require.Equal(t, c.left, r.sortedIDs())
			if c.elected {
				ss, _ := f.state().SyncState("b")
				require.Equal(t, c.left, ss.SyncStateSet)
				require.Equal(t, int32(2), ss.SyncStateSetEpoch, "clean never bumps epochs")
			}
		})
	}
}

func TestGetReplicaInfoAndSyncStateData(t *testing.T) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 3)
	live := newFakeLive().set("c", "b", 1, 0, 0, 0)
	var info wire.GetReplicaInfoResponse
	var err error
	f.fsm.read(func(s *state) { info, err = s.GetReplicaInfo(wire.GetReplicaInfoRequest{BrokerName: "b"}) })
	require.NoError(t, err)
	require.Equal(t, map[string]string{"masterEpoch": "0"}, info.ExtFields())

	f.apply(electMasterEvent{NewMasterElected: true, BrokerName: "b", NewMasterBrokerID: 1},
		alterSyncStateSetEvent{BrokerName: "b", NewSyncStateSet: []int64{1, 3}})
	var data wire.GetSyncStateDataResponse
	f.fsm.read(func(s *state) { data, err = s.GetSyncStateData([]string{"b", "zz"}, live) })
	require.NoError(t, err)
	require.Nil(t, data.ExtFields())
	require.Equal(t, `{"replicasInfoTable":{"b":{"inSyncReplicas":[`+
		`{"alive":true,"brokerAddress":"10.0.0.1:10911","brokerId":1,"brokerName":"b"},`+
		`{"alive":false,"brokerAddress":"10.0.0.3:10911","brokerId":3,"brokerName":"b"}],`+
		`"masterAddress":"10.0.0.1:10911","masterBrokerId":1,"masterEpoch":1,"notInSyncReplicas":[`+
		`{"alive":false,"brokerAddress":"10.0.0.2:10911","brokerId":2,"brokerName":"b"}],"syncStateSetEpoch":2}}}`,
		string(data.BodyBytes()))
	f.fsm.read(func(s *state) { _, err = s.GetSyncStateData(nil, live) })
	code, remark := responseCode(err)
	require.Equal(t, int32(1), code)
	require.Equal(t, "not set any response code", remark)
}

func TestResponseCodeTable(t *testing.T) {
	code, remark := responseCode(nil)
	require.Equal(t, int32(0), code)
	require.Empty(t, remark)
	code, remark = responseCode(errNotLeader)
	require.Equal(t, int32(2007), code)
	require.Equal(t, "The controller is not in leader state", remark)
	code, remark = responseCode(errNoPermission)
	require.Equal(t, int32(16), code)
	require.Equal(t, "Can not update config in black list.", remark)
	code, _ = responseCode(newError(errFencedSyncStateSetEpoch, "x"))
	require.Equal(t, int32(2001), code)
	code, remark = responseCode(errUnknown("boom"))
	require.Equal(t, int32(1), code)
	require.Equal(t, "boom", remark)
	for _, row := range codeTable {
		got, _ := responseCode(&domainError{Kind: row.err, Remark: "r"})
		require.Equal(t, row.code, got)
	}
}

type errUnknown string

func (e errUnknown) Error() string { return string(e) }
