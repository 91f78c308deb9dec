//go:build embedded_controller

package controller

import (
	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/internal/goldenfile"

	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// goldenLine is one exchange of the Java 5.3 controller capture.
type goldenLine = goldenfile.Exchange

type goldenHeader struct {
	Code      int32              `json:"code"`
	Remark    string             `json:"remark"`
	ExtFields *map[string]string `json:"extFields"`
}

type goldenReply struct {
	code   int32
	remark string
	ext    map[string]string
	body   []byte
	events []event // appended after the read lock is released
}

// goldenLeader plays the leader's domain part: build, append, apply, reply.
type goldenLeader struct {
	f  *testFSM
	hb *liveness.Table
}

func (g *goldenLeader) reply(resp response, events []event, err error) goldenReply {
	code, remark := responseCode(err)
	return goldenReply{code: code, remark: remark, ext: resp.ExtFields(), body: resp.BodyBytes(), events: events}
}

// handle dispatches one request; ok=false for codes that are not pure domain.
func (g *goldenLeader) handle(code int32, ext map[string]string, body []byte) (goldenReply, bool) {
	var out goldenReply
	g.f.fsm.read(func(s *state) { out = g.build(s, code, ext, body) })
	if len(out.events) > 0 {
		require.NoError(g.f.t, g.f.apply(out.events...).Err)
	}
	return out, out.code >= 0
}

func (g *goldenLeader) build(s *state, code int32, ext map[string]string, body []byte) goldenReply {
	switch code {
	case 904:
		return g.heartbeat(ext)
	case 1012:
		req, _ := wire.DecodeGetNextBrokerIDRequest(ext)
		return g.reply(s.GetNextBrokerID(req), nil, nil)
	case 1013:
		req, _ := wire.DecodeApplyBrokerIDRequest(ext)
		return g.reply(s.ApplyBrokerID(req))
	case 1003:
		req, _ := wire.DecodeRegisterBrokerRequest(ext)
		return g.reply(s.RegisterBroker(req, g.hb))
	case 1004:
		req, _ := wire.DecodeGetReplicaInfoRequest(ext)
		resp, err := s.GetReplicaInfo(req)
		return g.reply(resp, nil, err)
	case 1001:
		req, err := wire.DecodeAlterSyncStateSetRequest(ext, body)
		require.NoError(g.f.t, err)
		return g.reply(s.AlterSyncStateSet(req, g.hb))
	case 1002:
		req, err := wire.DecodeElectMasterRequest(ext)
		require.NoError(g.f.t, err)
		return g.reply(s.ElectMaster(req, g.hb, electOptions{}))
	case 1006:
		names, err := wire.DecodeBrokerNames(body)
		require.NoError(g.f.t, err)
		resp, err := s.GetSyncStateData(names, g.hb)
		return g.reply(resp, nil, err)
	case 1011:
		req, err := wire.DecodeCleanBrokerDataRequest(ext)
		require.NoError(g.f.t, err)
		return g.reply(s.CleanBrokerData(req, g.hb))
	}
	return goldenReply{code: -1}
}

func (g *goldenLeader) heartbeat(ext map[string]string) goldenReply {
	req, err := wire.DecodeBrokerHeartbeatRequest(ext)
	require.NoError(g.f.t, err)
	if err := g.hb.OnHeartbeat(req, 1); err != nil {
		code, remark := responseCode(err)
		return goldenReply{code: code, remark: remark}
	}
	return goldenReply{code: codeSuccess, remark: heartbeatSuccessRemark}
}

func readGolden(t *testing.T) []goldenLine {
	return goldenfile.Load(t, goldenfile.Controller)
}

func TestGoldenControllerExchanges(t *testing.T) {
	g := &goldenLeader{f: newTestFSM(t), hb: liveness.New(liveness.Options{Clock: newFakeClock(), Logger: testLogger(t)})}
	replayed := 0
	for _, l := range readGolden(t) {
		var req, want goldenHeader
		require.NoError(t, json.Unmarshal([]byte(l.RequestHeader), &req))
		require.NoError(t, json.Unmarshal([]byte(l.ResponseHeader), &want))
		if l.Connection != "leader" {
			continue
		}
		var reqExt map[string]string
		if req.ExtFields != nil {
			reqExt = *req.ExtFields
		}
		var body []byte
		if l.RequestBody != nil {
			body = []byte(*l.RequestBody)
		}
		got, ok := g.handle(req.Code, reqExt, body)
		if !ok {
			continue
		}
		replayed++
		compareGolden(t, l, want, got)
	}
	require.Equal(t, 32, replayed, "every leader exchange except 1005 and 1009")
}

func compareGolden(t *testing.T, l goldenLine, want goldenHeader, got goldenReply) {
	t.Helper()
	require.Equal(t, want.Code, got.code, l.Case)
	require.Equal(t, want.Remark, got.remark, l.Case)
	if want.ExtFields == nil {
		require.Nil(t, got.ext, l.Case)
	} else {
		require.NotNil(t, got.ext, l.Case)
		require.Equal(t, *want.ExtFields, got.ext, l.Case)
	}
	if l.ResponseBody == nil {
		require.Nil(t, got.body, l.Case)
	} else {
		require.Equal(t, *l.ResponseBody, string(got.body), l.Case)
	}
}
