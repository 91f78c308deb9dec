//go:build embedded_controller

package controller

import (
	"cmp"
	"slices"

	"github.com/rmqgo/nameserver/controller/liveness"
	"github.com/rmqgo/nameserver/controller/wire"
)

// electInput is what an electPolicy sees. Id lists are sorted ascending.
type electInput struct {
	ClusterName  string // the stored cluster name of the set (heartbeat key)
	BrokerName   string
	SyncStateSet []int64
	AllReplicas  []int64 // nil = no unclean pass
	OldMaster    int64   // NoBrokerID if none
	Prefer       int64   // designated broker, NoBrokerID if none
}

// electPolicy chooses a master; NoBrokerID means nobody can be elected.
type electPolicy interface {
	Elect(in electInput, live liveness.Reader) int64
}

// defaultElectPolicy is Java's DefaultElectPolicy wired to the heartbeat
// manager (docs/controller.md section 3.3): try the sync-state set, then
// (unclean) all replicas. In each pass only alive ids count; the old master
// is kept when alive unless another broker is designated; a designated broker
// wins only if alive; otherwise the best by epoch desc, max offset desc,
// election priority asc.
//
// Fixed Java quirks: offsets are compared as int64 (Java casts the
// difference to int and overflows for gaps ≥ 2^31); exact ties go to the
// lowest id (Java's TreeSet drops ties, keeping an iteration-order
// survivor); an alive id without live info sorts last instead of throwing.
type defaultElectPolicy struct{}

// Elect implements electPolicy.
func (p defaultElectPolicy) Elect(in electInput, live liveness.Reader) int64 {
	if id := p.tryElect(in, in.SyncStateSet, live); id != wire.NoBrokerID {
		return id
	}
	if in.AllReplicas != nil {
		return p.tryElect(in, in.AllReplicas, live)
	}
	return wire.NoBrokerID
}

func (defaultElectPolicy) tryElect(in electInput, candidates []int64, live liveness.Reader) int64 {
	alive := make([]int64, 0, len(candidates))
	for _, id := range candidates {
		if live.IsActive(in.ClusterName, in.BrokerName, id) {
			alive = append(alive, id)
		}
	}
	if len(alive) == 0 {
		return wire.NoBrokerID
	}
	if in.OldMaster != wire.NoBrokerID && slices.Contains(alive, in.OldMaster) &&
		(in.Prefer == wire.NoBrokerID || in.Prefer == in.OldMaster) {
		return in.OldMaster
	}
	if in.Prefer != wire.NoBrokerID {
		if slices.Contains(alive, in.Prefer) {
			return in.Prefer
		}
		return wire.NoBrokerID
	}
	return bestCandidate(in, alive, live)
}

type rankedCandidate struct {
	id      int64
	info    liveness.Info
	hasInfo bool
}

// bestCandidate ranks alive ids by epoch desc, maxOffset desc, priority asc, id asc.
func bestCandidate(in electInput, alive []int64, live liveness.Reader) int64 {
	ranked := make([]rankedCandidate, 0, len(alive))
	for _, id := range alive {
		info, ok := live.LiveInfo(in.ClusterName, in.BrokerName, id)
		ranked = append(ranked, rankedCandidate{id: id, info: info, hasInfo: ok})
	}
	slices.SortFunc(ranked, compareCandidates)
	return ranked[0].id
}

func compareCandidates(a, b rankedCandidate) int {
	if a.hasInfo != b.hasInfo {
		if a.hasInfo {
			return -1
		}
		return 1
	}
	return cmp.Or(
		cmp.Compare(b.info.Epoch, a.info.Epoch),
		cmp.Compare(b.info.MaxOffset, a.info.MaxOffset),
		cmp.Compare(a.info.ElectionPriority, b.info.ElectionPriority),
		cmp.Compare(a.id, b.id),
	)
}
