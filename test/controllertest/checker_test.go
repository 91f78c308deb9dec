//go:build embedded_controller

package controllertest

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/remoting"
)

// synth builds a history from (client, call ms, return ms, record) steps;
// a negative return marks an unknown outcome.
type synth struct {
	start time.Time
	recs  []*record
}

func newSynth() *synth { return &synth{start: time.Unix(1000, 0)} }

func (s *synth) add(client, call, ret int, r *record) *record {
	r.seq, r.client = len(s.recs), client
	r.call = s.start.Add(time.Duration(call) * time.Millisecond)
	if ret < 0 {
		r.unknown = true
	} else {
		r.ret = s.start.Add(time.Duration(ret) * time.Millisecond)
	}
	s.recs = append(s.recs, r)
	return r
}

func masterView(m int64, epoch, ssEpoch int32, sss ...int64) view {
	return view{hasMaster: true, master: m, epoch: epoch, hasSS: true, ssEpoch: ssEpoch, sss: sss}
}

// setup is applyId 1..3, broker 1 elected, set {1,2,3} (ssEpoch 2).
func (s *synth) setup() {
	for id := int64(1); id <= 3; id++ {
		s.add(int(id), int(id)*10, int(id)*10+5, &record{in: opInput{kind: opApplyID, broker: id}})
	}
	s.add(1, 40, 45, &record{in: opInput{kind: opElect, broker: 1}, out: masterView(1, 1, 1, 1)})
	s.add(1, 50, 55, &record{in: opInput{kind: opAlter, broker: 1, masterEpoch: 1, ssEpoch: 1, newSet: []int64{1, 2, 3}},
		out: view{hasSS: true, ssEpoch: 2, sss: []int64{1, 2, 3}}})
}

func check(s *synth) porcupine.CheckResult {
	res, _ := linearizable(s.recs, s.start, 10*time.Second, 0)
	return res
}

func TestModelAcceptsPendingElectionThatTookEffect(t *testing.T) {
	s := newSynth()
	s.setup()
	s.add(0, 100, -1, &record{in: opInput{kind: opAdminElect, broker: 2}, code: remoting.SystemError})
	s.add(1, 200, 210, &record{in: opInput{kind: opReplicaInfo}, out: masterView(2, 2, 3, 2)})
	require.Equal(t, porcupine.Ok, check(s))
	require.Empty(t, checkInvariants(s.recs))
}

func TestModelRejectsAlterBuiltFromStaleState(t *testing.T) {
	s := newSynth() // the stale-build schedule as the cluster showed it
	s.setup()
	s.add(0, 100, -1, &record{in: opInput{kind: opAdminElect, broker: 2}, code: remoting.SystemError})
	s.add(1, 5100, 5200, &record{in: opInput{kind: opAlter, broker: 1, masterEpoch: 1, ssEpoch: 2, newSet: []int64{1, 3}},
		out: view{hasSS: true, ssEpoch: 3, sss: []int64{1, 3}}})
	final := s.add(0, 5300, 5310, &record{in: opInput{kind: opReplicaInfo}, out: masterView(2, 2, 4, 1, 3)})
	require.Equal(t, porcupine.Illegal, check(s))
	vs := checkInvariants(s.recs)
	require.Len(t, vs, 1)
	require.Equal(t, "master in its sync-state set", vs[0].check)
	require.Same(t, final, vs[0].recs[0])
}

func TestChecksFlagTwoMastersOfOneEpochAndDecreasingEpochs(t *testing.T) {
	s := newSynth()
	s.setup()
	s.add(0, 100, 110, &record{in: opInput{kind: opAdminElect, broker: 3}, out: masterView(3, 2, 3, 3)})
	s.add(2, 120, 120, &record{in: opInput{kind: opNotice}, out: masterView(2, 2, 3, 2)})
	s.add(0, 130, 140, &record{in: opInput{kind: opReplicaInfo}, out: masterView(1, 1, 2, 1, 2, 3)})
	var checks []string
	for _, v := range checkInvariants(s.recs) {
		checks = append(checks, v.check)
	}
	require.Equal(t, []string{"one master per epoch", "epochs never decrease", "epochs never decrease"}, checks)
}

func TestNoLostWriteAllowsSupersededWrites(t *testing.T) {
	s := newSynth()
	s.setup()
	final := &record{in: opInput{kind: opSyncState}, out: masterView(1, 1, 2, 1, 2, 3)}
	final.out.hasRepl, final.out.replicas = true, []int64{1, 2, 3}
	require.Empty(t, checkNoLostWrite(s.recs, final))
	final.out.replicas = []int64{1, 2}
	final.out.sss = []int64{1, 2}
	vs := checkNoLostWrite(s.recs, final)
	require.Len(t, vs, 2, "the set of ssEpoch 2 differs and id 3 is gone")
}
