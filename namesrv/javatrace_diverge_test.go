package namesrv

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/rmqgo/nameserver/internal/fastjson"
	"github.com/rmqgo/nameserver/remoting"
)

// The replay's view of where Java's tables and ours part on purpose
// (deliberateDiffs): live entries Java keeps after their connection
// closed, and the steps after which the tables differ for the rest of
// a trace.

// orphanKey names a live entry by cluster and address.
func orphanKey(cluster, addr string) string { return cluster + " " + addr }

// listed reports whether a broker group of cluster lists addr.
func (d *traceDriver) listed(cluster, addr string) bool {
	for _, bd := range d.srv.Routes().ClusterInfo().BrokerAddrTable {
		if bd.Cluster == cluster && slices.Contains(slices.Collect(maps.Values(bd.BrokerAddrs)), addr) {
			return true
		}
	}
	return false
}

// trackOrphans notes the live entries op leaves behind in Java only.
func (d *traceDriver) trackOrphans(op traceOp, closing bool) {
	k := orphanKey(op.Cluster, op.Addr)
	switch {
	case op.Op == "close" && closing && !d.listed(op.Cluster, op.Addr):
		d.orphans[k] = true
	case op.Op == "unreg" || op.Op == "reg" && setsFilters(op):
		delete(d.orphans, k)
	}
}

// noteOrphanUse records the divergence an orphaned live entry causes in
// Java before op: a close of its pair unregisters, in Java, the group
// that lists its address by then; a registration from its pair with the
// same DataVersion is, in Java, no new version, so its topics are not put.
func (d *traceDriver) noteOrphanUse(op traceOp) {
	k := orphanKey(op.Cluster, op.Addr)
	switch {
	case !d.orphans[k]:
	case op.Op == "close" && d.conns[connKey(op)] == nil && len(d.holders(op.Cluster, op.Addr)) > 0:
		d.diverge(divergedOrphan)
	case op.Op == "reg" && d.versions[k] != "" && d.versions[k] == dataVersionOf(op):
		d.diverge(divergedOrphan)
	}
}

// dataVersionOf returns the dataVersion object of a registration body as
// it is spelled, or "".
func dataVersionOf(op traceOp) string {
	var b struct {
		Wrapper struct {
			DataVersion json.RawMessage `json:"dataVersion"`
		} `json:"topicConfigSerializeWrapper"`
	}
	if op.Body == nil || json.Unmarshal([]byte(*op.Body), &b) != nil {
		return ""
	}
	return string(b.Wrapper.DataVersion)
}

// setsFilters reports whether a registration's body carries a filter
// server list (without one Java leaves an orphan's list in place).
func setsFilters(op traceOp) bool {
	var b struct {
		FilterServerList *[]string `json:"filterServerList"`
	}
	return op.Body != nil && json.Unmarshal([]byte(*op.Body), &b) == nil && b.FilterServerList != nil
}

// Deliberate differences after which the rest of a trace is not compared
// step by step (deliberateDiffs).
const (
	divergedClose  = "closed address in two groups"
	divergedStale  = "stale queued unregistration"
	divergedOrphan = "closed connection of an unlisted address"
)

// diverge records the first deliberate difference that changes the tables.
func (d *traceDriver) diverge(name string) {
	if d.diverged == "" {
		d.diverged = name
	}
}

// noteClose compares the broker group a close unregisters here (the one
// the connection registered, route.Manager.unregFor) with Java's
// (setupUnRegisterRequest: the first group of the cluster, in
// brokerAddrTable's order, that lists the address), before it happens.
func (d *traceDriver) noteClose(key string) {
	pair, ok := d.pairs[key]
	if !ok {
		return
	}
	holders := d.holders(pair[0], pair[1])
	if len(holders) < 2 {
		return
	}
	ours := slices.Min(holders)
	if name := d.names[key]; slices.Contains(holders, name) {
		ours = name
	}
	if holders[0] != ours {
		d.diverge(divergedClose)
	}
}

// holders lists the groups of cluster that list addr, in the order of
// Java's brokerAddrTable (the order of the 106 body, which the replay
// checks against Java's at every step).
func (d *traceDriver) holders(cluster, addr string) []string {
	resp := d.send(remoting.GetBrokerClusterInfo, nil, nil)
	dec := json.NewDecoder(strings.NewReader(string(fastjson.QuoteNumericKeys(resp.Body))))
	var out []string
	for tok, err := dec.Token(); err == nil; tok, err = dec.Token() {
		if tok != "brokerAddrTable" {
			continue
		}
		if _, err := dec.Token(); err != nil { // {
			return out
		}
		for dec.More() {
			name, _ := dec.Token()
			var bd struct {
				Cluster     string            `json:"cluster"`
				BrokerAddrs map[string]string `json:"brokerAddrs"`
			}
			if dec.Decode(&bd) != nil {
				return out
			}
			if bd.Cluster == cluster && slices.Contains(slices.Collect(maps.Values(bd.BrokerAddrs)), addr) {
				out = append(out, name.(string))
			}
		}
		return out
	}
	return out
}
