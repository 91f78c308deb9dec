//go:build embedded_controller

package controllertest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// opKind is what a recorded client operation did.
type opKind int

// Operations of the fault workload: the leader-gated controller codes a
// broker or an admin sends, plus the 1008 notifications brokers receive.
const (
	opApplyID     opKind = iota // 1012 + 1013
	opRegister                  // 1003
	opElect                     // 1002, broker trigger
	opAdminElect                // 1002, designateElect=true
	opAlter                     // 1001
	opReplicaInfo               // 1004
	opSyncState                 // 1006
	opNotice                    // 1008 received by a broker (not an operation)
	opCtlElect                  // an election the controller may have run on its own
)

var opNames = map[opKind]string{opApplyID: "applyId", opRegister: "register", opElect: "elect",
	opAdminElect: "adminElect", opAlter: "alter", opReplicaInfo: "getReplicaInfo",
	opSyncState: "getSyncStateData", opNotice: "notify1008", opCtlElect: "controllerElect"}

func (k opKind) String() string { return opNames[k] }

// noMaster is the master id of a set without master.
const noMaster = int64(-1)

// view is the state of the broker set as one reply or notification shows
// it. has* say which parts the message carried.
type view struct {
	hasMaster bool
	master    int64
	epoch     int32
	hasSS     bool
	ssEpoch   int32
	sss       []int64 // sorted
	hasRepl   bool
	replicas  []int64 // sorted
}

// opInput is a request's payload as far as the model cares.
type opInput struct {
	kind        opKind
	broker      int64 // requester, designated or applied id
	masterEpoch int32 // alter
	ssEpoch     int32 // alter
	newSet      []int64
}

// record is one operation (or notification) of the history.
type record struct {
	seq     int
	client  int
	in      opInput
	call    time.Time
	ret     time.Time // zero: no answer (timed out, connection lost)
	unknown bool      // the outcome is unknown: it may or may not have taken effect
	code    int32
	remark  string
	out     view
}

func (r *record) String() string {
	s := fmt.Sprintf("#%d c%d %s", r.seq, r.client, r.in.kind)
	switch r.in.kind {
	case opAlter:
		s += fmt.Sprintf("(by %d, masterEpoch %d, ssEpoch %d, new %v)", r.in.broker, r.in.masterEpoch, r.in.ssEpoch, r.in.newSet)
	case opElect, opAdminElect, opApplyID, opRegister:
		s += fmt.Sprintf("(%d)", r.in.broker)
	}
	if r.unknown {
		return s + fmt.Sprintf(" -> UNKNOWN code %d %q", r.code, r.remark)
	}
	return s + fmt.Sprintf(" -> code %d %s", r.code, r.out)
}

func (v view) String() string {
	var parts []string
	if v.hasMaster {
		parts = append(parts, fmt.Sprintf("master %d masterEpoch %d", v.master, v.epoch))
	}
	if v.hasSS {
		parts = append(parts, fmt.Sprintf("ssEpoch %d sss %v", v.ssEpoch, v.sss))
	}
	if v.hasRepl {
		parts = append(parts, fmt.Sprintf("replicas %v", v.replicas))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// history collects the records of one trial; safe for concurrent use.
type history struct {
	mu    sync.Mutex
	start time.Time
	recs  []*record
}

func newHistory() *history { return &history{start: time.Now()} }

// add appends r and numbers it.
func (h *history) add(r *record) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r.seq = len(h.recs)
	h.recs = append(h.recs, r)
}

// records returns a copy of the records so far.
func (h *history) records() []*record {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.recs)
}

// lines renders the records with times relative to the start.
func (h *history) lines() []string {
	var out []string
	for _, r := range h.records() {
		ret := "        -"
		if !r.ret.IsZero() {
			ret = fmt.Sprintf("%9.3f", r.ret.Sub(h.start).Seconds())
		}
		out = append(out, fmt.Sprintf("%9.3f %s %s", r.call.Sub(h.start).Seconds(), ret, r))
	}
	return out
}

// isUnknownCode reports reply codes after which a write may still have
// taken effect: a timeout or failed append (1), a leader that stepped down
// while waiting (2007), a full queue answers 2 before anything ran but is
// kept unknown too.
func isUnknownCode(code int32) bool {
	return code == remoting.SystemError || code == remoting.ControllerNotLeader || code == remoting.SystemBusy
}

// parseReply fills r.out from a reply of r.in.kind.
func parseReply(r *record, resp *remoting.Command) {
	r.code, r.remark = resp.Code, resp.Remark
	if resp.Code != remoting.Success && !(r.in.kind == opElect || r.in.kind == opAdminElect) {
		return
	}
	switch r.in.kind {
	case opElect, opAdminElect:
		if resp.Code == remoting.Success || resp.Code == remoting.ControllerMasterStillExist {
			r.out = parseElect(resp)
		}
	case opAlter:
		r.out = view{hasSS: true, ssEpoch: atoi32(resp.ExtFields["newSyncStateSetEpoch"]), sss: slices.Sorted(slices.Values(r.in.newSet))}
	case opReplicaInfo, opRegister:
		r.out = parseMasterHeader(resp.ExtFields, r.in.kind == opReplicaInfo)
		addSyncStateSet(&r.out, resp.Body)
	case opSyncState:
		r.out = parseSyncState(resp.Body)
	}
}

// parseElect reads a 1002 reply (code 0 or 2011).
func parseElect(resp *remoting.Command) view {
	v := parseMasterHeader(resp.ExtFields, true)
	v.hasSS, v.ssEpoch = true, atoi32(resp.ExtFields["syncStateSetEpoch"])
	if body, err := wire.DecodeElectMasterResponseBody(resp.Body); err == nil {
		v.sss = slices.Sorted(slices.Values(body.SyncStateSet))
	}
	return v
}

// parseNotice reads a 1008 (header and SyncStateSet body).
func parseNotice(req *remoting.Command) view {
	v := parseMasterHeader(req.ExtFields, true)
	addSyncStateSet(&v, req.Body)
	return v
}

// parseMasterHeader reads masterBrokerId/masterEpoch; always says that a
// missing id means no master, else only when the id is present.
func parseMasterHeader(ext map[string]string, always bool) view {
	id, ok := ext["masterBrokerId"]
	if !ok && !always {
		return view{}
	}
	v := view{hasMaster: true, master: noMaster, epoch: atoi32(ext["masterEpoch"])}
	if ok {
		v.master, _ = strconv.ParseInt(id, 10, 64)
	}
	return v
}

// addSyncStateSet adds a SyncStateSet body to v.
func addSyncStateSet(v *view, body []byte) {
	if len(body) == 0 {
		return
	}
	if ss, err := wire.DecodeSyncStateSet(body); err == nil {
		v.hasSS, v.ssEpoch, v.sss = true, ss.SyncStateSetEpoch, slices.Sorted(slices.Values(ss.SyncStateSet))
	}
}

// parseSyncState reads a 1006 body for the fault workload's broker set.
func parseSyncState(body []byte) view {
	info, err := wire.DecodeBrokerReplicasInfo(body)
	if err != nil {
		return view{}
	}
	ri, ok := info.ReplicasInfoTable[faultSet]
	if !ok {
		return view{}
	}
	return replicasView(ri)
}

// replicasView is one set's entry of a 1006 body as a view.
func replicasView(ri wire.ReplicasInfo) view {
	v := view{hasMaster: true, master: noMaster, epoch: ri.MasterEpoch, hasSS: true, ssEpoch: ri.SyncStateSetEpoch, hasRepl: true}
	if ri.MasterBrokerID != nil {
		v.master = *ri.MasterBrokerID
	}
	for _, r := range ri.InSyncReplicas {
		v.sss = append(v.sss, r.BrokerID)
	}
	v.replicas = append(slices.Clone(v.sss), ids(ri.NotInSyncReplicas)...)
	slices.Sort(v.sss)
	slices.Sort(v.replicas)
	return v
}

func ids(rs []wire.ReplicaIdentity) []int64 {
	var out []int64
	for _, r := range rs {
		out = append(out, r.BrokerID)
	}
	return out
}

func atoi32(s string) int32 {
	n, _ := strconv.ParseInt(s, 10, 32)
	return int32(n)
}
