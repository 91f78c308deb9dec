//go:build embedded_controller

package controllertest

import (
	"fmt"
	"slices"
)

// violation is one broken safety property, with the records that show it.
type violation struct {
	check string
	msg   string
	recs  []*record
}

func (v violation) String() string {
	s := v.check + ": " + v.msg
	for _, r := range v.recs {
		s += "\n\t" + r.String()
	}
	return s
}

// checkInvariants runs the per-message checks over every reply and
// notification of recs: one master per master epoch, the master in its
// sync-state set, epochs never decreasing as each client sees them.
func checkInvariants(recs []*record) []violation {
	var out []violation
	out = append(out, checkOneMasterPerEpoch(recs)...)
	out = append(out, checkMasterInSyncStateSet(recs)...)
	return append(out, checkEpochsMonotonic(recs)...)
}

// observed is every record that shows the set's state.
func observed(recs []*record) []*record {
	var out []*record
	for _, r := range recs {
		if !r.unknown && (r.out.hasMaster || r.out.hasSS) {
			out = append(out, r)
		}
	}
	return out
}

// checkOneMasterPerEpoch: a master epoch names one master, whoever reports
// it (elect replies, reads, registrations, 1008 notifications).
func checkOneMasterPerEpoch(recs []*record) []violation {
	first := map[int32]*record{}
	var out []violation
	for _, r := range observed(recs) {
		if !r.out.hasMaster || r.out.epoch == 0 {
			continue
		}
		f, ok := first[r.out.epoch]
		switch {
		case !ok:
			first[r.out.epoch] = r
		case f.out.master != r.out.master:
			out = append(out, violation{check: "one master per epoch",
				msg:  fmt.Sprintf("masterEpoch %d names master %d and master %d", r.out.epoch, f.out.master, r.out.master),
				recs: []*record{f, r}})
		}
	}
	return out
}

// checkMasterInSyncStateSet: a message carrying master and sync-state set
// of one state has the master inside the set.
func checkMasterInSyncStateSet(recs []*record) []violation {
	var out []violation
	for _, r := range observed(recs) {
		if r.in.kind == opAlter || !r.out.hasMaster || !r.out.hasSS || r.out.master == noMaster {
			continue
		}
		if !slices.Contains(r.out.sss, r.out.master) {
			out = append(out, violation{check: "master in its sync-state set",
				msg:  fmt.Sprintf("master %d, sync-state set %v (ssEpoch %d)", r.out.master, r.out.sss, r.out.ssEpoch),
				recs: []*record{r}})
		}
	}
	return out
}

// checkEpochsMonotonic: each client's replies, in the order it got them,
// never show a smaller masterEpoch or syncStateSetEpoch than before.
func checkEpochsMonotonic(recs []*record) []violation {
	type last struct{ epoch, ss *record }
	seen := map[int]*last{}
	var out []violation
	for _, r := range observed(recs) {
		if r.in.kind == opNotice {
			continue // deliveries are not ordered
		}
		l := seen[r.client]
		if l == nil {
			l = &last{}
			seen[r.client] = l
		}
		if r.out.hasMaster {
			if l.epoch != nil && r.out.epoch < l.epoch.out.epoch {
				out = append(out, violation{check: "epochs never decrease", msg: fmt.Sprintf("client %d: masterEpoch %d after %d",
					r.client, r.out.epoch, l.epoch.out.epoch), recs: []*record{l.epoch, r}})
			}
			l.epoch = r
		}
		if r.out.hasSS {
			if l.ss != nil && r.out.ssEpoch < l.ss.out.ssEpoch {
				out = append(out, violation{check: "epochs never decrease", msg: fmt.Sprintf("client %d: syncStateSetEpoch %d after %d",
					r.client, r.out.ssEpoch, l.ss.out.ssEpoch), recs: []*record{l.ss, r}})
			}
			l.ss = r
		}
	}
	return out
}

// checkNoLostWrite compares the acknowledged writes with the final state
// (a 1006 read after the faults healed): every acknowledged election,
// alteration and applied id is in it or superseded by a later epoch.
func checkNoLostWrite(recs []*record, final *record) []violation {
	var out []violation
	lost := func(r *record, format string, args ...any) {
		out = append(out, violation{check: "no acknowledged write lost", msg: fmt.Sprintf(format, args...), recs: []*record{r, final}})
	}
	f := final.out
	for _, r := range recs {
		if r.unknown || r.code != 0 {
			continue
		}
		switch r.in.kind {
		case opElect, opAdminElect:
			if r.out.epoch > f.epoch || (r.out.epoch == f.epoch && r.out.master != f.master) {
				lost(r, "election of %d in masterEpoch %d", r.out.master, r.out.epoch)
			}
		case opAlter:
			if r.out.ssEpoch > f.ssEpoch || (r.out.ssEpoch == f.ssEpoch && !slices.Equal(r.out.sss, f.sss)) {
				lost(r, "sync-state set %v of ssEpoch %d", r.out.sss, r.out.ssEpoch)
			}
		case opApplyID:
			if !slices.Contains(f.replicas, r.in.broker) {
				lost(r, "broker id %d", r.in.broker)
			}
		}
	}
	return out
}
