//go:build embedded_controller

package controller

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/rmqgo/nameserver/controller/wire"
)

// randomRequest builds one random request against the applied state s.
func (w *simWorld) randomRequest(s *state) (simEntry, []event, error) {
	var e simEntry
	var events []event
	var err error
	ids := simIDs(s)
	switch r := w.rng.Intn(100); {
	case r < 20 || len(ids) == 0:
		req := w.applyIDRequest(s)
		e.kind, e.req = "applyId", req
		e.resp, events, err = s.ApplyBrokerID(req)
	case r < 55:
		req := w.electRequest(ids)
		e.kind, e.req = "elect", req
		e.resp, events, err = s.ElectMaster(req, w.hb, electOptions{EnableElectUncleanMaster: w.rng.Intn(4) == 0})
	case r < 85:
		req := w.alterRequest(s, ids)
		e.kind, e.req = "alter", req
		e.resp, events, err = s.AlterSyncStateSet(req, w.hb)
	case r < 93:
		req := wire.CleanBrokerDataRequest{ClusterName: simCluster, BrokerName: simBroker,
			BrokerControllerIDsToClean: strconv.FormatInt(ids[w.rng.Intn(len(ids))], 10)}
		e.kind, e.req = "clean", req
		e.resp, events, err = s.CleanBrokerData(req, w.hb)
	default:
		id := ids[w.rng.Intn(len(ids))]
		req := wire.RegisterBrokerRequest{ClusterName: simCluster, BrokerName: simBroker, BrokerID: id,
			BrokerAddress: fmt.Sprintf("%s#%d", addrOf(id), w.rng.Intn(3))}
		e.kind, e.req = "register", req
		e.resp, events, err = s.RegisterBroker(req, w.hb)
	}
	e.err = err
	return e, events, err
}

// applyIDRequest is a fresh broker asking for the next id (1012, then 1013).
func (w *simWorld) applyIDRequest(s *state) wire.ApplyBrokerIDRequest {
	next := s.GetNextBrokerID(wire.GetNextBrokerIDRequest{ClusterName: simCluster, BrokerName: simBroker}).NextBrokerID
	if next > simMaxIDs {
		next = 1 + w.rng.Int63n(simMaxIDs)
	}
	return wire.ApplyBrokerIDRequest{ClusterName: simCluster, BrokerName: simBroker, AppliedBrokerID: next,
		RegisterCheckCode: fmt.Sprintf("%s;%d", addrOf(next), w.rng.Int63())}
}

func (w *simWorld) electRequest(ids []int64) wire.ElectMasterRequest {
	id := ids[w.rng.Intn(len(ids))]
	switch w.rng.Intn(3) {
	case 0:
		return brokerTriggerElect(simCluster, simBroker, id)
	case 1:
		return adminTriggerElect(simCluster, simBroker, id)
	}
	return controllerTriggerElect(simBroker)
}

// alterRequest is the master shrinking or growing its sync-state set, with
// the epochs it knows (the applied ones; entries in flight make them stale).
func (w *simWorld) alterRequest(s *state, ids []int64) wire.AlterSyncStateSetRequest {
	ss, _ := s.SyncState(simBroker)
	set := []int64{}
	for _, id := range ids {
		if id == ss.MasterBrokerID || w.rng.Intn(2) == 0 {
			set = append(set, id)
		}
	}
	return wire.AlterSyncStateSetRequest{BrokerName: simBroker, MasterBrokerID: ss.MasterBrokerID,
		MasterEpoch: ss.MasterEpoch, SyncStateSet: wire.SyncStateSet{SyncStateSet: set, SyncStateSetEpoch: ss.SyncStateSetEpoch}}
}

func simIDs(s *state) []int64 {
	r, ok := s.Replicas(simBroker)
	if !ok {
		return nil
	}
	return r.sortedIDs()
}

// simChecker holds what the run has observed and checks every commit.
type simChecker struct {
	w           *simWorld
	epochMaster map[int32]int64 // master epoch → the master it names
	known       map[int64]string
	prev        syncStateInfo
	prevNext    int64
	commits     int
	rejected    int
	violation   string
}

func newSimChecker(w *simWorld) *simChecker {
	return &simChecker{w: w, epochMaster: map[int32]int64{}, known: map[int64]string{}}
}

func (c *simChecker) failed() bool { return c.violation != "" }

func (c *simChecker) fail(format string, args ...any) {
	if c.violation == "" {
		c.violation = fmt.Sprintf(format, args...)
	}
}

// afterCommit checks the reply the committed entry yields and the state.
func (c *simChecker) afterCommit(e simEntry, res *applyResult, st *state) {
	c.commits++
	if res.Err != nil {
		c.rejected++
	} else if e.err == nil {
		c.checkReply(e, st)
	}
	c.checkState(st)
}

// checkReply: a successful reply must describe the state it was applied to.
func (c *simChecker) checkReply(e simEntry, st *state) {
	ss, _ := st.SyncState(simBroker)
	r, _ := st.Replicas(simBroker)
	switch resp := e.resp.(type) {
	case wire.ElectMasterResponse:
		if *resp.MasterBrokerID != ss.MasterBrokerID || *resp.MasterEpoch != ss.MasterEpoch {
			c.fail("elect reply names master %d epoch %d, the log gives master %d epoch %d",
				*resp.MasterBrokerID, *resp.MasterEpoch, ss.MasterBrokerID, ss.MasterEpoch)
		}
		c.noteEpoch(*resp.MasterEpoch, *resp.MasterBrokerID, "elect reply")
	case wire.AlterSyncStateSetResponse:
		if resp.NewSyncStateSetEpoch != ss.SyncStateSetEpoch || !slices.Equal(resp.SyncStateSet.SyncStateSet, ss.SyncStateSet) {
			c.fail("alter reply says set %v epoch %d, the log gives %v epoch %d", resp.SyncStateSet.SyncStateSet,
				resp.NewSyncStateSetEpoch, ss.SyncStateSet, ss.SyncStateSetEpoch)
		}
	case wire.ApplyBrokerIDResponse:
		req := e.req.(wire.ApplyBrokerIDRequest)
		if got := r.Brokers[req.AppliedBrokerID].RegisterCheckCode; got != req.RegisterCheckCode {
			c.fail("apply id %d acknowledged to %q but the log holds it for %q", req.AppliedBrokerID, req.RegisterCheckCode, got)
		}
		c.known[req.AppliedBrokerID] = req.RegisterCheckCode
		c.w.alive[req.AppliedBrokerID] = true
		c.w.next = max(c.w.next, req.AppliedBrokerID+1)
	case wire.CleanBrokerDataResponse:
		for _, id := range simCleanedIDs(e.req.(wire.CleanBrokerDataRequest)) {
			delete(c.known, id)
		}
	}
}

func simCleanedIDs(req wire.CleanBrokerDataRequest) []int64 {
	ids, _ := parseIDList(req.BrokerControllerIDsToClean)
	return ids
}

func (c *simChecker) noteEpoch(epoch int32, master int64, what string) {
	if prev, ok := c.epochMaster[epoch]; ok && prev != master {
		c.fail("two masters for master epoch %d: %d and %d (%s)", epoch, prev, master, what)
	}
	c.epochMaster[epoch] = master
}

// checkState: invariants of the applied state after every commit.
func (c *simChecker) checkState(st *state) {
	ss, hasSS := st.SyncState(simBroker)
	r, hasR := st.Replicas(simBroker)
	for id, code := range c.known {
		if got, ok := r.Brokers[id]; !hasR || !ok || got.RegisterCheckCode != code {
			c.fail("acknowledged broker id %d (%s) is no longer held: %s", id, code, simDescribe(st))
		}
	}
	if hasR {
		if r.NextAssignBrokerID < c.prevNext {
			c.fail("next broker id went down: %d after %d", r.NextAssignBrokerID, c.prevNext)
		}
		c.prevNext = r.NextAssignBrokerID
	}
	if !hasSS {
		return
	}
	if ss.MasterBrokerID != wire.NoBrokerID && !containsID(ss.SyncStateSet, ss.MasterBrokerID) {
		c.fail("master %d is not in its sync-state set %v (epoch %d)", ss.MasterBrokerID, ss.SyncStateSet, ss.MasterEpoch)
	}
	if ss.MasterEpoch < c.prev.MasterEpoch || ss.SyncStateSetEpoch < c.prev.SyncStateSetEpoch {
		c.fail("epochs went down: %s after master epoch %d set epoch %d", simDescribe(st), c.prev.MasterEpoch, c.prev.SyncStateSetEpoch)
	}
	c.noteEpoch(ss.MasterEpoch, ss.MasterBrokerID, "state")
	c.prev = ss
}
