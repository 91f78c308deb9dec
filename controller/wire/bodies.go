package wire

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/rmqgo/nameserver/internal/fastjson"
)

// JSON bodies of the controller protocol (docs/controller.md section 1.2).
// Encoders write what fastjson 1.2.83 writes: keys in alphabetical order,
// null fields omitted, Map<Long,String> with unquoted numeric keys, Set<Long>
// as an ascending array. Decoders are lenient: they accept unquoted numeric
// object keys.

// SyncStateSet is body/SyncStateSet.java.
type SyncStateSet struct {
	SyncStateSet      []int64 `json:"syncStateSet"`
	SyncStateSetEpoch int32   `json:"syncStateSetEpoch"`
}

// BrokerMemberGroup is body/BrokerMemberGroup.java.
type BrokerMemberGroup struct {
	Cluster     string
	BrokerName  string
	BrokerAddrs map[int64]string
}

// ElectMasterResponseBody is body/ElectMasterResponseBody.java.
type ElectMasterResponseBody struct {
	BrokerMemberGroup *BrokerMemberGroup // nil = omitted
	SyncStateSet      []int64
}

// ReplicaIdentity is BrokerReplicasInfo.ReplicaIdentity.
type ReplicaIdentity struct {
	Alive         bool   `json:"alive"`
	BrokerAddress string `json:"brokerAddress"`
	BrokerID      int64  `json:"brokerId"`
	BrokerName    string `json:"brokerName"`
}

// ReplicasInfo is BrokerReplicasInfo.ReplicasInfo.
type ReplicasInfo struct {
	InSyncReplicas    []ReplicaIdentity `json:"inSyncReplicas"`
	MasterAddress     *string           `json:"masterAddress"`
	MasterBrokerID    *int64            `json:"masterBrokerId"`
	MasterEpoch       int32             `json:"masterEpoch"`
	NotInSyncReplicas []ReplicaIdentity `json:"notInSyncReplicas"`
	SyncStateSetEpoch int32             `json:"syncStateSetEpoch"`
}

// BrokerReplicasInfo is body/BrokerReplicasInfo.java (the 1006 reply).
type BrokerReplicasInfo struct {
	ReplicasInfoTable map[string]ReplicasInfo `json:"replicasInfoTable"`
}

// Encode writes {"syncStateSet":[..],"syncStateSetEpoch":n}.
func (s SyncStateSet) Encode() []byte {
	w := newObj(nil)
	w.key("syncStateSet")
	w.b = appendIDs(w.b, s.SyncStateSet)
	w.key("syncStateSetEpoch")
	w.b = strconv.AppendInt(w.b, int64(s.SyncStateSetEpoch), 10)
	return w.end()
}

func (s *SyncStateSet) encodeOrNil() []byte {
	if s == nil {
		return nil
	}
	return s.Encode()
}

// Encode writes {"brokerAddrs":{1:"a"},"brokerName":..,"cluster":..}.
func (g BrokerMemberGroup) Encode() []byte { return g.appendTo(nil) }

func (g BrokerMemberGroup) appendTo(b []byte) []byte {
	w := newObj(b)
	if g.BrokerAddrs != nil {
		w.key("brokerAddrs")
		w.b = appendAddrs(w.b, g.BrokerAddrs)
	}
	w.str("brokerName", g.BrokerName)
	w.str("cluster", g.Cluster)
	return w.end()
}

// Encode writes {"brokerMemberGroup":{..},"syncStateSet":[..]}.
func (e ElectMasterResponseBody) Encode() []byte {
	w := newObj(nil)
	if e.BrokerMemberGroup != nil {
		w.key("brokerMemberGroup")
		w.b = e.BrokerMemberGroup.appendTo(w.b)
	}
	if e.SyncStateSet != nil {
		w.key("syncStateSet")
		w.b = appendIDs(w.b, e.SyncStateSet)
	}
	return w.end()
}

// Encode writes {"replicasInfoTable":{"<name>":{..}}} with names sorted.
func (bi BrokerReplicasInfo) Encode() []byte {
	w := newObj(nil)
	w.key("replicasInfoTable")
	names := make([]string, 0, len(bi.ReplicasInfoTable))
	for n := range bi.ReplicasInfoTable {
		names = append(names, n)
	}
	sort.Strings(names)
	t := newObj(w.b)
	for _, n := range names {
		t.key(n)
		t.b = bi.ReplicasInfoTable[n].appendTo(t.b)
	}
	w.b = t.end()
	return w.end()
}

func (ri ReplicasInfo) appendTo(b []byte) []byte {
	w := newObj(b)
	w.key("inSyncReplicas")
	w.b = appendReplicas(w.b, ri.InSyncReplicas)
	if ri.MasterAddress != nil {
		w.str("masterAddress", *ri.MasterAddress)
	}
	if ri.MasterBrokerID != nil {
		w.int("masterBrokerId", *ri.MasterBrokerID)
	}
	w.int("masterEpoch", int64(ri.MasterEpoch))
	w.key("notInSyncReplicas")
	w.b = appendReplicas(w.b, ri.NotInSyncReplicas)
	w.int("syncStateSetEpoch", int64(ri.SyncStateSetEpoch))
	return w.end()
}

func appendReplicas(b []byte, rs []ReplicaIdentity) []byte {
	b = append(b, '[')
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		w := newObj(b)
		w.key("alive")
		w.b = strconv.AppendBool(w.b, r.Alive)
		w.str("brokerAddress", r.BrokerAddress)
		w.int("brokerId", r.BrokerID)
		w.str("brokerName", r.BrokerName)
		b = w.end()
	}
	return append(b, ']')
}

// appendIDs writes a Set<Long> as an ascending array.
func appendIDs(b []byte, ids []int64) []byte {
	b = append(b, '[')
	for i, id := range NormalizeIDs(ids) {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return append(b, ']')
}

// appendAddrs writes a Map<Long,String> with unquoted keys, ascending.
func appendAddrs(b []byte, addrs map[int64]string) []byte {
	ids := make([]int64, 0, len(addrs))
	for id := range addrs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	b = append(b, '{')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = fastjson.AppendNumberKey(b, id, fastjson.Default)
		b = fastjson.AppendString(b, addrs[id], fastjson.Default)
	}
	return append(b, '}')
}

// DecodeSyncStateSet parses a SyncStateSet body (missing set = empty).
func DecodeSyncStateSet(body []byte) (SyncStateSet, error) {
	var s SyncStateSet
	if err := lenientUnmarshal(body, &s); err != nil {
		return SyncStateSet{}, err
	}
	s.SyncStateSet = NormalizeIDs(s.SyncStateSet)
	return s, nil
}

type memberGroupJSON struct {
	Cluster     string            `json:"cluster"`
	BrokerName  string            `json:"brokerName"`
	BrokerAddrs map[string]string `json:"brokerAddrs"`
}

func (j *memberGroupJSON) toGroup() (*BrokerMemberGroup, error) {
	g := &BrokerMemberGroup{Cluster: j.Cluster, BrokerName: j.BrokerName}
	if j.BrokerAddrs == nil {
		return g, nil
	}
	g.BrokerAddrs = make(map[int64]string, len(j.BrokerAddrs))
	for k, v := range j.BrokerAddrs {
		id, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("brokerAddrs key %q: %w", k, err)
		}
		g.BrokerAddrs[id] = v
	}
	return g, nil
}

// DecodeBrokerMemberGroup parses a BrokerMemberGroup (unquoted keys accepted).
func DecodeBrokerMemberGroup(body []byte) (BrokerMemberGroup, error) {
	var j memberGroupJSON
	if err := lenientUnmarshal(body, &j); err != nil {
		return BrokerMemberGroup{}, err
	}
	g, err := j.toGroup()
	if err != nil {
		return BrokerMemberGroup{}, err
	}
	return *g, nil
}

// DecodeElectMasterResponseBody parses an ElectMasterResponseBody.
func DecodeElectMasterResponseBody(body []byte) (ElectMasterResponseBody, error) {
	var j struct {
		BrokerMemberGroup *memberGroupJSON `json:"brokerMemberGroup"`
		SyncStateSet      []int64          `json:"syncStateSet"`
	}
	if err := lenientUnmarshal(body, &j); err != nil {
		return ElectMasterResponseBody{}, err
	}
	out := ElectMasterResponseBody{SyncStateSet: j.SyncStateSet}
	if j.BrokerMemberGroup != nil {
		g, err := j.BrokerMemberGroup.toGroup()
		if err != nil {
			return ElectMasterResponseBody{}, err
		}
		out.BrokerMemberGroup = g
	}
	return out, nil
}

// DecodeBrokerReplicasInfo parses a 1006 reply body.
func DecodeBrokerReplicasInfo(body []byte) (BrokerReplicasInfo, error) {
	var bi BrokerReplicasInfo
	err := lenientUnmarshal(body, &bi)
	return bi, err
}

// DecodeBrokerNames parses the 1006 request body, a JSON array of names.
func DecodeBrokerNames(body []byte) ([]string, error) {
	var names []string
	err := lenientUnmarshal(body, &names)
	return names, err
}

// lenientUnmarshal is json.Unmarshal after quoting bare numeric object keys.
func lenientUnmarshal(body []byte, v any) error {
	return json.Unmarshal(fastjson.QuoteNumericKeys(body), v)
}

// NormalizeIDs returns ids sorted ascending without duplicates, never nil:
// the order fastjson writes a Set<Long> in.
func NormalizeIDs(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	out = slices.Compact(out)
	if cap(out) > 2*len(out)+8 { // duplicates: keep no array they filled
		out = slices.Clone(out)
	}
	if out == nil {
		out = []int64{}
	}
	return out
}
