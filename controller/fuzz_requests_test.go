//go:build embedded_controller

package controller

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/wire"
)

// TestRequestDecodeErrorCode: a request that does not decode is answered
// with code 1 and Java's remark (decodeCommandCustomHeader).
func TestRequestDecodeErrorCode(t *testing.T) {
	_, err := wire.DecodeElectMasterRequest(map[string]string{"clusterName": "c", "brokerName": "b", "designateElect": "false"})
	code, remark := responseCode(err)
	require.Equal(t, codeSystemError, code)
	require.Equal(t, "the custom field <brokerId> is null", remark)
	_, err = wire.DecodeAlterSyncStateSetRequest(map[string]string{}, []byte(`nope`))
	require.Equal(t, codeSystemError, codeOf(err))
}

// fuzzExt turns "k=v" lines into a header's ext fields.
func fuzzExt(s string) map[string]string {
	ext := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			ext[k] = v
		}
	}
	return ext
}

// fuzzState is a state with one set of three brokers, master 1.
func fuzzState(t *testing.T) (*state, *fakeLive) {
	f := newTestFSM(t)
	registerSet(f, "c", "b", 3)
	f.apply(electMasterEvent{NewMasterElected: true, BrokerName: "b", NewMasterBrokerID: 1})
	live := newFakeLive().set("c", "b", 1, 1, 10, 0).set("c", "b", 2, 1, 9, 0)
	return f.state(), live
}

// FuzzControllerRequest decodes every leader-gated request header (and the
// alter body) from arbitrary ext fields and runs its builder on a small
// state: no input may panic, and a builder that fails returns no events.
func FuzzControllerRequest(f *testing.F) {
	f.Add(uint8(0), "clusterName=c\nbrokerName=b\nbrokerId=2\ndesignateElect=true", []byte(nil))
	f.Add(uint8(1), "brokerName=b\nmasterBrokerId=1\nmasterEpoch=1", []byte(`{"syncStateSet":[1,2],"syncStateSetEpoch":1}`))
	f.Add(uint8(2), "clusterName=c\nbrokerName=b\nappliedBrokerId=4\nregisterCheckCode=a:1;5", []byte(nil))
	f.Add(uint8(3), "clusterName=c\nbrokerName=b\nbrokerControllerIdsToClean=3;", []byte(nil))
	f.Add(uint8(4), "clusterName=c\nbrokerName=b\nbrokerId=2\nbrokerAddress=x:1", []byte(nil))
	f.Add(uint8(5), "clusterName=c\nbrokerName=b\nbrokerAddr=a:1\nbrokerId=9\nheartbeatTimeoutMills=-5", []byte(nil))
	f.Fuzz(func(t *testing.T, which uint8, header string, body []byte) {
		s, live := fuzzState(t)
		ext := fuzzExt(header)
		events, err := fuzzBuild(s, live, which%6, ext, body)
		if err != nil && len(events) > 0 {
			if _, isElect := events[0].(electMasterEvent); !isElect { // a failed controller election is recorded
				t.Fatalf("builder failed (%v) but returned %d events", err, len(events))
			}
		}
		_, _ = decodeEntry(body)
		_, _ = wire.DecodeBrokerNames(body)
	})
}

func fuzzBuild(s *state, live *fakeLive, which uint8, ext map[string]string, body []byte) ([]event, error) {
	switch which {
	case 0:
		req, err := wire.DecodeElectMasterRequest(ext)
		if err != nil {
			return nil, nil
		}
		_, evs, err := s.ElectMaster(req, live, electOptions{EnableElectUncleanMaster: req.DesignateElect})
		return evs, err
	case 1:
		req, err := wire.DecodeAlterSyncStateSetRequest(ext, body)
		if err != nil {
			return nil, nil
		}
		_, evs, err := s.AlterSyncStateSet(req, live)
		return evs, err
	case 2:
		req, err := wire.DecodeApplyBrokerIDRequest(ext)
		if err != nil {
			return nil, nil
		}
		_, evs, err := s.ApplyBrokerID(req)
		return evs, err
	case 3:
		req, err := wire.DecodeCleanBrokerDataRequest(ext)
		if err != nil {
			return nil, nil
		}
		_, evs, err := s.CleanBrokerData(req, live)
		return evs, err
	case 4:
		req, err := wire.DecodeRegisterBrokerRequest(ext)
		if err != nil {
			return nil, nil
		}
		_, evs, err := s.RegisterBroker(req, live)
		return evs, err
	}
	req, err := wire.DecodeBrokerHeartbeatRequest(ext)
	if err == nil {
		_ = liveness.New(liveness.Options{}).OnHeartbeat(req, 1)
	}
	return nil, nil
}
