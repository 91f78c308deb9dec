//go:build embedded_controller

package controllertest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// stormSettleWait bounds the polls after the storm: the new leader's
// election, its warm-up if it has just started, a scan or two and the elections
// (one at a time on today's scheduler: 333 of them in the long fleet).
const stormSettleWait = 8 * waitLimit

// slave is the set's surviving broker (the only candidate of a failed set).
func (s *stormSet) slave() *faultClient { return s.brokers[1] }

// wantMaster is the master the set must end with.
func (s *stormSet) wantMaster() int64 {
	if s.failed {
		return s.slave().ids
	}
	return s.brokers[0].ids
}

// awaitSlavesLearn has every failed set's surviving broker poll 1004
// (recorded, one attempt each) until it names the broker master, as a
// broker that missed its 1008 would (a leader kill can lose one).
func awaitSlavesLearn(t *testing.T, sets []*stormSet) {
	t.Helper()
	interval := 500 * time.Millisecond
	if len(sets) > 200 {
		interval = time.Second // the long fleet: keep the reads below the elections
	}
	var mu sync.Mutex
	var late []string
	forEachFailed(sets, func(s *stormSet) {
		if !pollUntil(stormSettleWait, interval, func() bool {
			r := s.slave().replicaInfo()
			return succeeded(r) && r.out.master == s.slave().ids
		}) {
			mu.Lock()
			late = append(late, s.name)
			mu.Unlock()
		}
	})
	require.Empty(t, late, "failed sets whose surviving broker was never named master by 1004 within %v", stormSettleWait)
}

// forEachFailed runs fn for every failed set, all at once, and waits for
// them.
func forEachFailed(sets []*stormSet, fn func(s *stormSet)) {
	var wg sync.WaitGroup
	for _, s := range sets {
		if s.failed {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fn(s)
			}()
		}
	}
	wg.Wait()
}

// pollUntil calls fn every interval until it reports true or wait passed.
func pollUntil(wait, interval time.Duration, fn func() bool) bool {
	for deadline := time.Now().Add(wait); ; time.Sleep(interval) {
		if fn() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// awaitFleetSettled polls one 1006 of every set (a read across all sets,
// recorded in each set's history) until every set has its expected master
// inside its sync-state set; it returns each set's last record.
func awaitFleetSettled(t *testing.T, admin *faultClient, sets []*stormSet) map[string]*record {
	t.Helper()
	var final map[string]*record
	var wrong []string
	ok := pollUntil(stormSettleWait, 200*time.Millisecond, func() bool {
		recs := readFleet(admin, sets)
		if recs == nil {
			return false
		}
		final, wrong = recs, nil
		for _, s := range sets {
			v := recs[s.name].out
			if v.master != s.wantMaster() || !slices.Contains(v.sss, v.master) {
				wrong = append(wrong, fmt.Sprintf("%s (failed %v): %s", s.name, s.failed, v))
			}
		}
		return len(wrong) == 0
	})
	require.True(t, ok && final != nil, "sets without their expected master %v after the storm: %v", stormSettleWait, wrong)
	return final
}

// readFleet is one 1006 naming every set, sent by admin to the leader it
// finds; its answer is added to each set's history as a read by client 0.
// nil when it failed (a failed read is not an operation).
func readFleet(admin *faultClient, sets []*stormSet) map[string]*record {
	names := make([]string, len(sets))
	for i, s := range sets {
		names[i] = s.name
	}
	body, err := json.Marshal(names)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	leader, _ := admin.b.FindLeader(ctx)
	if leader == "" {
		return nil
	}
	call := time.Now()
	resp, err := admin.b.Invoke(ctx, leader, remoting.ControllerGetSyncStateData, nil, body)
	ret := time.Now()
	if err != nil || resp.Code != remoting.Success {
		return nil
	}
	info, err := wire.DecodeBrokerReplicasInfo(resp.Body)
	if err != nil {
		return nil
	}
	out := make(map[string]*record, len(sets))
	for _, s := range sets {
		r := &record{client: 0, in: opInput{kind: opSyncState}, call: call, ret: ret}
		if ri, ok := info.ReplicasInfoTable[s.name]; ok {
			r.out = replicasView(ri)
		}
		s.h.add(r)
		out[s.name] = r
	}
	return out
}

// verifyFleet runs the fault suite's checks on every set's history, then
// the storm's own: it returns what failed (the histories of the first
// failing sets are logged).
func verifyFleet(t *testing.T, sets []*stormSet, final map[string]*record) []string {
	t.Helper()
	var out []string
	logged := 0
	verdicts := map[porcupine.CheckResult]int{}
	for _, s := range sets {
		vs, verdict := s.verify(final[s.name])
		verdicts[verdict]++
		out = append(out, vs...)
		if len(vs) > 0 && logged < 3 {
			logged++
			t.Logf("history of %s (failed %v):", s.name, s.failed)
			for _, l := range s.h.lines() {
				t.Log(l)
			}
		}
	}
	t.Logf("porcupine over %d sets' histories: %d ok, %d unknown, %d illegal",
		len(sets), verdicts[porcupine.Ok], verdicts[porcupine.Unknown], verdicts[porcupine.Illegal])
	return out
}

// stormHiddenElections is how many election attempts the controller may
// run on its own in a failed set: the old leader's and the new leader's
// triggered elections, electMasterMaxRetryCount attempts each, and one
// more loop (the new leader's scan may find the set twice). A live set
// has none.
const stormHiddenElections = 3 * attemptsPerElection

// verify checks one set: invariants of every reply and 1008, no
// acknowledged write lost, porcupine, the final master, the 1008s since
// the failure.
func (s *stormSet) verify(final *record) ([]string, porcupine.CheckResult) {
	for _, c := range s.brokers {
		c.notices()
	}
	recs := s.h.records()
	var out []string
	for _, v := range append(checkInvariants(recs), checkNoLostWrite(recs, final)...) {
		out = append(out, s.name+": "+v.String())
	}
	out = append(out, s.checkOutcome(final)...)
	hidden := 0
	if s.failed {
		hidden = stormHiddenElections
	}
	res, partial := linearizable(recs, s.h.start, porcupineTimeout, hidden)
	if res == porcupine.Illegal {
		out = append(out, fmt.Sprintf("%s: linearizability: no linearization (%d hidden controller election attempts); "+
			"the longest partial one ends:\n\t%s", s.name, hidden, tail(partial, 6)))
	}
	return out, res
}

// checkOutcome: the set ends with its expected master inside its
// sync-state set; a live set keeps its master epoch and none of its
// brokers is told of a new master (a new leader may tell them again of the
// master they know, at the master epoch they know: a broker acts only on
// a higher one); every 1008 of a failed set since the failure names its
// surviving broker.
func (s *stormSet) checkOutcome(final *record) []string {
	var out []string
	v := final.out
	if v.master != s.wantMaster() || !slices.Contains(v.sss, v.master) {
		out = append(out, fmt.Sprintf("%s (failed %v): final state %s, want master %d in its sync-state set",
			s.name, s.failed, v, s.wantMaster()))
	}
	if !s.failed && v.epoch != s.epoch {
		out = append(out, fmt.Sprintf("%s: a live set's master epoch moved from %d to %d", s.name, s.epoch, v.epoch))
	}
	for i, c := range s.brokers {
		for _, n := range c.b.Notices()[s.notices[i]:] {
			nv := parseNotice(n.Req)
			switch {
			case !s.failed && nv.master == s.brokers[0].ids && nv.epoch == s.epoch &&
				n.Req.ExtFields["masterAddress"] == s.brokers[0].b.Addr():
			case !s.failed:
				out = append(out, fmt.Sprintf("%s: broker %d of a live set was told of master %d (masterEpoch %d)",
					s.name, c.ids, nv.master, nv.epoch))
			case nv.master != s.slave().ids || n.Req.ExtFields["masterAddress"] != s.slave().b.Addr():
				out = append(out, fmt.Sprintf("%s: a 1008 names master %d at %s, not the surviving broker %d at %s",
					s.name, nv.master, n.Req.ExtFields["masterAddress"], s.slave().ids, s.slave().b.Addr()))
			}
		}
	}
	return out
}
