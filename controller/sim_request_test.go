//go:build embedded_controller

package controller

import (
	"fmt"
	"strconv"

	"github.com/rmqgo/nameserver/controller/wire"
)

// randomRequest builds one random request against the applied state s:
// for set (its key; a request that may grow the state reserves its growth
// through lim), or a 1006 read of several sets (their keys), which half
// the time appends a read barrier (processReadEvent) and is answered when
// it commits.
func (w *simWorld) randomRequest(s *state, set *simSet, lim stateLimits) (*simEntry, []event) {
	ids := simIDs(s, set.name)
	e := &simEntry{set: set.name, keys: []string{set.name}}
	var events []event
	switch r := w.rng.Intn(100); {
	case r < 18 || len(ids) == 0:
		req := w.applyIDRequest(s, set.name)
		e.kind, e.req = "applyId", req
		e.resp, events, e.err = s.applyBrokerID(req, lim)
	case r < 46:
		req := w.electRequest(set.name, ids)
		e.kind, e.req = "elect", req
		e.resp, events, e.err = s.ElectMaster(req, w.hb, electOptions{EnableElectUncleanMaster: w.rng.Intn(4) == 0})
	case r < 70:
		req := w.alterRequest(s, set.name, ids)
		e.kind, e.req = "alter", req
		e.resp, events, e.err = s.AlterSyncStateSet(req, w.hb)
	case r < 78:
		req := wire.CleanBrokerDataRequest{ClusterName: simCluster, BrokerName: set.name,
			BrokerControllerIDsToClean: strconv.FormatInt(ids[w.rng.Intn(len(ids))], 10)}
		e.kind, e.req = "clean", req
		e.resp, events, e.err = s.CleanBrokerData(req, w.hb)
	case r < 86:
		id := ids[w.rng.Intn(len(ids))]
		req := wire.RegisterBrokerRequest{ClusterName: simCluster, BrokerName: set.name, BrokerID: id,
			BrokerAddress: fmt.Sprintf("%s#%d", addrOf(id), w.rng.Intn(3))}
		e.kind, e.req = "register", req
		e.resp, events, e.err = s.registerBroker(req, w.hb, lim)
	default:
		return w.readRequest(s), nil
	}
	return e, events
}

// readRequest is a 1006 read of a random non-empty subset of the sets.
func (w *simWorld) readRequest(s *state) *simEntry {
	var names []string
	for _, set := range w.sets {
		if w.rng.Intn(2) == 0 {
			names = append(names, set.name)
		}
	}
	if len(names) == 0 {
		names = append(names, w.sets[w.rng.Intn(len(w.sets))].name)
	}
	e := &simEntry{kind: "read", keys: names, req: names, barrier: w.rng.Intn(2) == 0}
	e.resp, e.err = s.GetSyncStateData(names, w.hb)
	return e
}

// applyIDRequest is a fresh broker asking for the next id (1012, then 1013).
func (w *simWorld) applyIDRequest(s *state, name string) wire.ApplyBrokerIDRequest {
	next := s.GetNextBrokerID(wire.GetNextBrokerIDRequest{ClusterName: simCluster, BrokerName: name}).NextBrokerID
	if next > simMaxIDs {
		next = 1 + w.rng.Int63n(simMaxIDs)
	}
	return wire.ApplyBrokerIDRequest{ClusterName: simCluster, BrokerName: name, AppliedBrokerID: next,
		RegisterCheckCode: fmt.Sprintf("%s;%d", addrOf(next), w.rng.Int63())}
}

func (w *simWorld) electRequest(name string, ids []int64) wire.ElectMasterRequest {
	id := ids[w.rng.Intn(len(ids))]
	switch w.rng.Intn(3) {
	case 0:
		return brokerElectRequest(simCluster, name, id)
	case 1:
		return adminElectRequest(simCluster, name, id)
	}
	return controllerElectRequest(name)
}

// alterRequest is the master shrinking or growing its sync-state set, with
// the epochs it knows (the applied ones; entries in flight make them stale).
func (w *simWorld) alterRequest(s *state, name string, ids []int64) wire.AlterSyncStateSetRequest {
	ss, _ := s.SyncState(name)
	set := []int64{}
	for _, id := range ids {
		if id == ss.MasterBrokerID || w.rng.Intn(2) == 0 {
			set = append(set, id)
		}
	}
	return wire.AlterSyncStateSetRequest{BrokerName: name, MasterBrokerID: ss.MasterBrokerID,
		MasterEpoch: ss.MasterEpoch, SyncStateSet: wire.SyncStateSet{SyncStateSet: set, SyncStateSetEpoch: ss.SyncStateSetEpoch}}
}

func simIDs(s *state, name string) []int64 {
	r, ok := s.Replicas(name)
	if !ok {
		return nil
	}
	return r.sortedIDs()
}
