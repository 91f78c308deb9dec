//go:build embedded_controller

package controllertest

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/rmqgo/nameserver/remoting"
)

// setState is the model of one broker set (ReplicasInfoManager's view of
// it): ids are bits of the masks (ids 1..63).
type setState struct {
	exists   bool
	master   int64
	epoch    int32
	sss      uint64
	ssEpoch  int32
	replicas uint64
}

func (s setState) String() string {
	return fmt.Sprintf("{master %d masterEpoch %d sss %v ssEpoch %d replicas %v}",
		s.master, s.epoch, maskIDs(s.sss), s.ssEpoch, maskIDs(s.replicas))
}

func mask(ids []int64) uint64 {
	var m uint64
	for _, id := range ids {
		if id > 0 && id < 64 {
			m |= 1 << id
		}
	}
	return m
}

func maskIDs(m uint64) []int64 {
	var out []int64
	for m != 0 {
		b := bits.TrailingZeros64(m)
		out = append(out, int64(b))
		m &^= 1 << b
	}
	return out
}

func has(m uint64, id int64) bool { return id > 0 && id < 64 && m&(1<<id) != 0 }

// elected is s after a successful election of m.
func (s setState) elected(m int64) setState {
	s.master, s.epoch, s.sss, s.ssEpoch = m, s.epoch+1, mask([]int64{m}), s.ssEpoch+1
	return s
}

// candidates are the ids an election may pick: the first election's
// requester, else the sync-state set's members but the current master
// (unclean election is off in these tests).
func (s setState) candidates(in opInput) []int64 {
	if !s.exists {
		return nil
	}
	var out []int64
	if s.epoch == 0 && has(s.replicas, in.broker) {
		out = append(out, in.broker)
	}
	for _, id := range maskIDs(s.sss) {
		if id != s.master && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// canAlter reports whether the alter's fencing passes in s.
func (s setState) canAlter(in opInput) bool {
	return s.exists && s.master == in.broker && s.epoch == in.masterEpoch &&
		s.ssEpoch == in.ssEpoch && mask(in.newSet) != s.sss
}

func (s setState) altered(in opInput) setState {
	s.sss, s.ssEpoch = mask(in.newSet), s.ssEpoch+1
	return s
}

func (s setState) applied(id int64) setState {
	if !s.exists {
		s = setState{exists: true, master: noMaster}
	}
	s.replicas |= mask([]int64{id})
	return s
}

// step is the model's nondeterministic step: every state the operation
// can lead to from s with the recorded outcome (none: impossible).
func step(s setState, r *record) []setState {
	if r.unknown {
		return stepUnknown(s, r.in)
	}
	switch r.in.kind {
	case opElect, opAdminElect:
		return stepElect(s, r)
	case opAlter:
		if r.code != remoting.Success {
			return []setState{s}
		}
		if s.canAlter(r.in) && r.out.ssEpoch == s.ssEpoch+1 {
			return []setState{s.altered(r.in)}
		}
		return nil
	case opApplyID:
		if r.code != remoting.Success {
			return []setState{s}
		}
		if s.exists || r.in.broker == 1 {
			return []setState{s.applied(r.in.broker)}
		}
		return nil
	}
	if matches(s, r.out) {
		return []setState{s}
	}
	return nil
}

func stepUnknown(s setState, in opInput) []setState {
	out := []setState{s}
	switch in.kind {
	case opElect, opAdminElect:
		for _, m := range s.candidates(in) {
			out = append(out, s.elected(m))
		}
	case opAlter:
		if s.canAlter(in) {
			out = append(out, s.altered(in))
		}
	case opApplyID:
		if s.exists || in.broker == 1 {
			out = append(out, s.applied(in.broker))
		}
	case opCtlElect:
		out = append(out, s.ctlElected()...)
	}
	return out
}

// ctlElected are the states one attempt of the controller's own election
// may append: a new master from the sync-state set, or "no master"
// (masterEpoch+1, the set kept) when there is a master to clear.
func (s setState) ctlElected() []setState {
	if !s.exists {
		return nil
	}
	var out []setState
	for _, id := range maskIDs(s.sss) {
		if id != s.master {
			out = append(out, s.elected(id))
		}
	}
	if s.master == noMaster {
		return out
	}
	none := s
	none.master, none.epoch = noMaster, s.epoch+1
	return append(out, none)
}

func stepElect(s setState, r *record) []setState {
	v := r.out
	switch r.code {
	case remoting.Success:
		next := s.elected(v.master)
		if slices.Contains(s.candidates(r.in), v.master) && v.epoch == next.epoch && v.ssEpoch == next.ssEpoch {
			return []setState{next}
		}
		return nil
	case remoting.ControllerMasterStillExist:
		if s.exists && s.master != noMaster && v.master == s.master && v.epoch == s.epoch && v.ssEpoch == s.ssEpoch {
			return []setState{s}
		}
		return nil
	}
	return []setState{s}
}

// matches reports whether a read's view is the state s.
func matches(s setState, v view) bool {
	if !v.hasMaster && !v.hasSS {
		return !s.exists
	}
	ok := s.exists && v.master == s.master && v.epoch == s.epoch &&
		v.ssEpoch == s.ssEpoch && mask(v.sss) == s.sss
	if v.hasRepl {
		ok = ok && mask(v.replicas) == s.replicas
	}
	return ok
}

// setModel is the porcupine model of one broker set.
var setModel = (&porcupine.NondeterministicModel{
	Init: func() []interface{} { return []interface{}{setState{master: noMaster}} },
	Step: func(state, _, output interface{}) []interface{} {
		var out []interface{}
		for _, s := range step(state.(setState), output.(*record)) {
			out = append(out, s)
		}
		return out
	},
	DescribeOperation: func(_, output interface{}) string { return output.(*record).String() },
	DescribeState:     func(state interface{}) string { return state.(setState).String() },
}).ToModel()

// linearizable checks recs against setModel: unknown outcomes stay pending
// forever, failed reads are left out, 1008 notifications are not
// operations. hidden is how many election attempts the controller may have
// run on its own (T1/T2): each is an operation pending from the start. It
// returns porcupine's verdict and, when it is Illegal, the
// longest partial linearization found.
func linearizable(recs []*record, start time.Time, timeout time.Duration, hidden int) (porcupine.CheckResult, []string) {
	var ops []porcupine.Operation
	for range hidden {
		r := &record{client: -1, in: opInput{kind: opCtlElect}, unknown: true}
		ops = append(ops, porcupine.Operation{Input: r.in, Output: r, Return: math.MaxInt64})
	}
	for _, r := range recs {
		if r.in.kind == opNotice || r.in.kind == opRegister || (isRead(r.in.kind) && (r.unknown || r.code != 0)) {
			continue
		}
		ret := int64(math.MaxInt64)
		if !r.unknown {
			ret = r.ret.Sub(start).Nanoseconds()
		}
		ops = append(ops, porcupine.Operation{ClientId: r.client, Input: r.in, Call: r.call.Sub(start).Nanoseconds(),
			Output: r, Return: ret})
	}
	res, info := porcupine.CheckOperationsVerbose(setModel, ops, timeout)
	if res != porcupine.Illegal {
		return res, nil
	}
	return res, longestPartial(info, ops)
}

func isRead(k opKind) bool { return k == opReplicaInfo || k == opSyncState }

// longestPartial renders the longest partial linearization porcupine
// found, then the first completed operation it could not place after it.
func longestPartial(info porcupine.LinearizationInfo, ops []porcupine.Operation) []string {
	var best []porcupine.Operation
	for _, part := range info.PartialLinearizationsOperations() {
		for _, seq := range part {
			if len(seq) > len(best) {
				best = seq
			}
		}
	}
	placed := map[*record]bool{}
	var out []string
	for _, op := range best {
		placed[op.Output.(*record)] = true
		out = append(out, op.Output.(*record).String())
	}
	if r := firstUnplaced(ops, placed); r != nil {
		out = append(out, "cannot be placed next: "+r.String())
	}
	return out
}

// firstUnplaced is the completed operation outside placed that returned
// first: the one the partial linearization could not go on with.
func firstUnplaced(ops []porcupine.Operation, placed map[*record]bool) *record {
	var first *record
	for _, op := range ops {
		r := op.Output.(*record)
		if !placed[r] && !r.unknown && (first == nil || r.ret.Before(first.ret)) {
			first = r
		}
	}
	return first
}
