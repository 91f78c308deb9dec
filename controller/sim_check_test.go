//go:build embedded_controller

package controller

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/rmqgo/nameserver/controller/wire"
)

// simSeen is what the run has observed of one broker set.
type simSeen struct {
	epochMaster map[int32]int64 // master epoch → the master it names
	known       map[int64]string
	prev        *syncStateInfo
	prevNext    int64
	// replied are the highest epochs any reply carried so far: a later
	// reply (a later linearization point) never shows less.
	repliedMaster, repliedSS int32
}

// simStats counts what a run exercised.
type simStats struct {
	seeds, commits, rejected, batches, batched, mixed, lost, reads int
}

func (s *simStats) addAll(o simStats) {
	s.seeds++
	s.commits += o.commits
	s.rejected += o.rejected
	s.batches += o.batches
	s.batched += o.batched
	s.mixed += o.mixed
	s.lost += o.lost
	s.reads += o.reads
}

// simTotals are the stats of every run by ordering.
type simTotals [len(simOrderNames)]simStats

func (t *simTotals) add(o simOrder, s simStats) { t[o].addAll(s) }

func (t *simTotals) String() string {
	out := ""
	for o, s := range t {
		out += fmt.Sprintf("\n\torder %-7s %4d seeds: %6d entries committed, %5d rejected by Apply's preconditions, "+
			"%5d batches of %6d entries (%d with a rejected entry among accepted ones), %5d entries lost, %5d reads",
			simOrder(o), s.seeds, s.commits, s.rejected, s.batches, s.batched, s.mixed, s.lost, s.reads)
	}
	return out
}

// simChecker holds what the run has observed and checks every commit and
// every reply.
type simChecker struct {
	w         *simWorld
	seen      map[string]*simSeen
	stats     simStats
	violation string
}

func newSimChecker(w *simWorld) *simChecker {
	c := &simChecker{w: w, seen: map[string]*simSeen{}}
	for _, set := range w.sets {
		c.seen[set.name] = &simSeen{epochMaster: map[int32]int64{}, known: map[int64]string{}}
	}
	return c
}

func (c *simChecker) failed() bool { return c.violation != "" }

func (c *simChecker) fail(format string, args ...any) {
	if c.violation == "" {
		c.violation = fmt.Sprintf(format, args...)
	}
}

// onBuild checks the replies computed at build time: reads (whose
// linearization point is the build) and 2011 "master still exists".
func (c *simChecker) onBuild(e *simEntry) {
	switch resp := e.resp.(type) {
	case wire.GetSyncStateDataResponse:
		if e.err == nil {
			c.stats.reads++
			c.checkReadReply(resp)
		}
	case wire.ElectMasterResponse:
		if codeOf(e.err) == codeOf(newError(errMasterStillExist, "")) {
			c.checkElectReply(e.set, resp)
		}
	}
}

// checkReadReply: every set of a 1006 reply has its master in sync, one
// master per epoch, and epochs no lower than earlier replies'.
func (c *simChecker) checkReadReply(resp wire.GetSyncStateDataResponse) {
	for name, ri := range resp.Info.ReplicasInfoTable {
		master := wire.NoBrokerID
		if ri.MasterBrokerID != nil {
			master = *ri.MasterBrokerID
			if !slices.ContainsFunc(ri.InSyncReplicas, func(r wire.ReplicaIdentity) bool { return r.BrokerID == master }) {
				c.fail("set %s: 1006 names master %d outside its in-sync replicas %+v", name, master, ri.InSyncReplicas)
			}
		}
		c.noteEpoch(name, ri.MasterEpoch, master, "1006 reply")
		c.noteReply(name, ri.MasterEpoch, ri.SyncStateSetEpoch, "1006 reply")
	}
}

func (c *simChecker) checkElectReply(name string, resp wire.ElectMasterResponse) {
	if resp.Body != nil && !slices.Contains(resp.Body.SyncStateSet, *resp.MasterBrokerID) {
		c.fail("set %s: elect reply names master %d outside its sync-state set %v", name, *resp.MasterBrokerID,
			resp.Body.SyncStateSet)
	}
	c.noteEpoch(name, *resp.MasterEpoch, *resp.MasterBrokerID, "elect reply")
	c.noteReply(name, *resp.MasterEpoch, *resp.SyncStateSetEpoch, "elect reply")
}

// afterCommit checks the reply the committed entry yields and the state.
func (c *simChecker) afterCommit(e *simEntry, res *applyResult, st *state) {
	c.stats.commits++
	switch {
	case res.Err != nil:
		c.stats.rejected++
		if c.w.order == orderPerSet {
			c.fail("entry %d (%s %q) rejected under per-set order: %v (an entry in flight of another set, "+
				"or of its own set, made it stale)", e.index, e.kind, e.keys, res.Err)
		}
	case e.barrier && c.w.order == orderPerSet:
		c.checkBarrier(e, st)
	case e.err == nil:
		c.checkReply(e, st)
	}
	c.checkState(st)
}

// checkBarrier: under per-set order nothing of a read's sets commits
// between its build and its barrier, so its reply is their state.
func (c *simChecker) checkBarrier(e *simEntry, st *state) {
	want, _ := st.GetSyncStateData(e.req.([]string), c.w.hb)
	got := e.resp.(wire.GetSyncStateDataResponse)
	for name, ri := range got.Info.ReplicasInfoTable {
		w := want.Info.ReplicasInfoTable[name]
		if !reflect.DeepEqual(simEpochs(ri), simEpochs(w)) {
			c.fail("set %s: read answered at its barrier shows %v, the state there is %v", name, simEpochs(ri), simEpochs(w))
		}
	}
}

func simEpochs(ri wire.ReplicasInfo) [3]int64 {
	m := wire.NoBrokerID
	if ri.MasterBrokerID != nil {
		m = *ri.MasterBrokerID
	}
	return [3]int64{m, int64(ri.MasterEpoch), int64(ri.SyncStateSetEpoch)}
}

// checkReply: a successful reply must describe the state it was applied to.
func (c *simChecker) checkReply(e *simEntry, st *state) {
	ss, _ := st.SyncState(e.set)
	r, _ := st.Replicas(e.set)
	seen := c.seen[e.set]
	switch resp := e.resp.(type) {
	case wire.ElectMasterResponse:
		if *resp.MasterBrokerID != ss.MasterBrokerID || *resp.MasterEpoch != ss.MasterEpoch {
			c.fail("set %s: elect reply names master %d epoch %d, the log gives master %d epoch %d", e.set,
				*resp.MasterBrokerID, *resp.MasterEpoch, ss.MasterBrokerID, ss.MasterEpoch)
		}
		c.checkElectReply(e.set, resp)
	case wire.AlterSyncStateSetResponse:
		if resp.NewSyncStateSetEpoch != ss.SyncStateSetEpoch || !slices.Equal(resp.SyncStateSet.SyncStateSet, ss.SyncStateSet) {
			c.fail("set %s: alter reply says set %v epoch %d, the log gives %v epoch %d", e.set, resp.SyncStateSet.SyncStateSet,
				resp.NewSyncStateSetEpoch, ss.SyncStateSet, ss.SyncStateSetEpoch)
		}
		c.noteReply(e.set, 0, resp.NewSyncStateSetEpoch, "alter reply")
	case wire.ApplyBrokerIDResponse:
		req := e.req.(wire.ApplyBrokerIDRequest)
		if got := r.Brokers[req.AppliedBrokerID].RegisterCheckCode; got != req.RegisterCheckCode {
			c.fail("set %s: apply id %d acknowledged to %q but the log holds it for %q", e.set, req.AppliedBrokerID,
				req.RegisterCheckCode, got)
		}
		seen.known[req.AppliedBrokerID] = req.RegisterCheckCode
		set := c.w.set(e.set)
		set.alive[req.AppliedBrokerID] = true
		set.next = max(set.next, req.AppliedBrokerID+1)
	case wire.CleanBrokerDataResponse:
		for _, id := range simCleanedIDs(e.req.(wire.CleanBrokerDataRequest)) {
			delete(seen.known, id)
		}
	}
}

func simCleanedIDs(req wire.CleanBrokerDataRequest) []int64 {
	ids, _ := parseIDList(req.BrokerControllerIDsToClean)
	return ids
}

func (c *simChecker) noteEpoch(name string, epoch int32, master int64, what string) {
	seen := c.seen[name]
	if prev, ok := seen.epochMaster[epoch]; ok && prev != master {
		c.fail("set %s: two masters for master epoch %d: %d and %d (%s)", name, epoch, prev, master, what)
	}
	seen.epochMaster[epoch] = master
}

// noteReply checks that a reply's epochs are no lower than any earlier
// reply's for the set (0: the reply does not carry that epoch).
func (c *simChecker) noteReply(name string, masterEpoch, ssEpoch int32, what string) {
	seen := c.seen[name]
	if masterEpoch < seen.repliedMaster && masterEpoch != 0 || ssEpoch < seen.repliedSS {
		c.fail("set %s: %s carries master epoch %d set epoch %d after a reply with %d and %d", name, what,
			masterEpoch, ssEpoch, seen.repliedMaster, seen.repliedSS)
	}
	seen.repliedMaster, seen.repliedSS = max(seen.repliedMaster, masterEpoch), max(seen.repliedSS, ssEpoch)
}

// checkState: invariants of the applied state after every commit, per
// set; under per-set order the configured bounds hold too (each growing
// task's check counted the growth reserved by the others in flight).
func (c *simChecker) checkState(st *state) {
	for _, set := range c.w.sets {
		c.checkSet(st, set.name)
	}
	if c.w.order != orderPerSet {
		return
	}
	lim := c.w.lim
	if n := max(len(st.replicas), len(st.syncStates)); n > lim.BrokerSets {
		c.fail("%d broker sets, over the configured %d", n, lim.BrokerSets)
	}
	if b := st.scanBytes(); b > lim.StateBytes {
		c.fail("%d bytes of state, over the configured %d", b, lim.StateBytes)
	}
	for name, r := range st.replicas {
		if len(r.Brokers) > lim.BrokersPerSet {
			c.fail("set %s: %d brokers, over the configured %d", name, len(r.Brokers), lim.BrokersPerSet)
		}
	}
}

func (c *simChecker) checkSet(st *state, name string) {
	seen := c.seen[name]
	ss, hasSS := st.SyncState(name)
	r, hasR := st.Replicas(name)
	for id, code := range seen.known {
		if got, ok := r.Brokers[id]; !hasR || !ok || got.RegisterCheckCode != code {
			c.fail("set %s: acknowledged broker id %d (%s) is no longer held: %s", name, id, code, simDescribe(st, name))
		}
	}
	if hasR {
		if r.NextAssignBrokerID < seen.prevNext {
			c.fail("set %s: next broker id went down: %d after %d", name, r.NextAssignBrokerID, seen.prevNext)
		}
		seen.prevNext = r.NextAssignBrokerID
	}
	if !hasSS {
		return
	}
	if ss.MasterBrokerID != wire.NoBrokerID && !containsID(ss.SyncStateSet, ss.MasterBrokerID) {
		c.fail("set %s: master %d is not in its sync-state set %v (epoch %d)", name, ss.MasterBrokerID, ss.SyncStateSet, ss.MasterEpoch)
	}
	if p := seen.prev; p != nil && (ss.MasterEpoch < p.MasterEpoch || ss.SyncStateSetEpoch < p.SyncStateSetEpoch) {
		c.fail("set %s: epochs went down: %s after master epoch %d set epoch %d", name, simDescribe(st, name),
			p.MasterEpoch, p.SyncStateSetEpoch)
	}
	c.noteEpoch(name, ss.MasterEpoch, ss.MasterBrokerID, "state")
	seen.prev = &ss
}

// sameResult: the FSM under test gave the entry the reference's result.
func (c *simChecker) sameResult(e *simEntry, got any, want *applyResult) {
	res, ok := got.(*applyResult)
	switch {
	case !ok:
		c.fail("entry %d (%s): the batch result is %T, not *applyResult", want.Index, e.kind, got)
	case res.Index != want.Index || (res.Err == nil) != (want.Err == nil) || codeOf(res.Err) != codeOf(want.Err):
		c.fail("entry %d (%s) in a batch: index %d err %v; applied alone: index %d err %v", want.Index, e.kind,
			res.Index, res.Err, want.Index, want.Err)
	}
}

// noteBatch counts a batch of n entries of which rejected were rejected.
func (c *simChecker) noteBatch(n, rejected int) {
	if n > 1 {
		c.stats.batches++
		c.stats.batched += n
		if rejected > 0 && rejected < n {
			c.stats.mixed++
		}
	}
}

// sameState: after a batch the FSM under test holds the reference's state.
func (c *simChecker) sameState(f, ref *FSM) {
	if got, want := simClone(f), simClone(ref); !reflect.DeepEqual(got, want) {
		c.fail("after a batch the FSM holds%s, the entries applied one at a time give%s",
			c.w.describe(got), c.w.describe(want))
	}
}
