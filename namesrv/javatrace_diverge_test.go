package namesrv

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/rmqgo/nameserver/internal/fastjson"
	"github.com/rmqgo/nameserver/namesrv/wire"
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

// divergedDeadAddr is item 1's rule: once every connection of an address
// has closed or expired and it has no live entry, no group lists it here;
// Java keeps it in every group but the one a close or request named.
const divergedDeadAddr = "address without a live entry or connection"

// noteDeadAddrs diverges when Java's 106 answer lists an address that
// ours does not, that has no live entry here in any cluster of the
// universe and no open connection of the replay registered it: the route
// tables swept it by item 1's rule.
// It diverges too when Java routes the filter servers of an address that
// has been swept here (its filter-server entries went with it), which
// ours routes without them.
func (d *traceDriver) noteDeadAddrs(u traceUniverse, want, got []string) {
	w, g := clusterInfoAddrs(want), clusterInfoAddrs(got)
	for addr := range w {
		if !g[addr] && !d.live(u, addr) && !d.connected(addr) {
			d.diverge(divergedDeadAddr)
			return
		}
	}
	for i := range min(len(want), len(got)) {
		wt, _, ok1 := cutFilterTable(want[i])
		gt, _, ok2 := cutFilterTable(got[i])
		var wm, gm map[string][]string
		if !ok1 || !ok2 || json.Unmarshal([]byte(wt), &wm) != nil || json.Unmarshal([]byte(gt), &gm) != nil {
			continue
		}
		for addr := range wm {
			if _, ok := gm[addr]; !ok && d.dead[addr] {
				d.diverge(divergedDeadAddr)
				return
			}
		}
	}
}

// noteDead records the addresses of the trace that, after a step, have
// no live entry in any registered pair and no open connection.
func (d *traceDriver) noteDead(op traceOp) {
	if op.Op == "reg" {
		d.registered[[2]string{op.Cluster, op.Addr}] = true
		key := connKey(op)
		if d.connAddrs[key] == nil {
			d.connAddrs[key] = map[string]bool{}
		}
		d.connAddrs[key][op.Addr] = true
	}
	lives := map[string]bool{}
	for p := range d.registered {
		if _, stored := d.srv.Routes().QueryDataVersion(p[0], p[1], &wire.DataVersion{}); stored != nil {
			lives[p[1]] = true
		}
	}
	for p := range d.registered {
		if !lives[p[1]] && !d.connected(p[1]) {
			d.dead[p[1]] = true
		}
	}
}

// connected reports whether an open broker connection of the replay has
// carried a registration of addr.
func (d *traceDriver) connected(addr string) bool {
	for key := range d.conns {
		if d.connAddrs[key][addr] {
			return true
		}
	}
	return false
}

// live reports whether addr has a live entry in a cluster of u.
func (d *traceDriver) live(u traceUniverse, addr string) bool {
	for _, c := range u.Clusters {
		if _, stored := d.srv.Routes().QueryDataVersion(c, addr, &wire.DataVersion{}); stored != nil {
			return true
		}
	}
	return false
}

// clusterInfoAddrs returns the addresses the 106 line of an answer lists.
func clusterInfoAddrs(lines []string) map[string]bool {
	out := map[string]bool{}
	for _, l := range lines {
		b, ok := strings.CutPrefix(l, "106 ")
		if !ok {
			continue
		}
		var ci struct {
			BrokerAddrTable map[string]struct {
				BrokerAddrs map[string]string `json:"brokerAddrs"`
			} `json:"brokerAddrTable"`
		}
		if json.Unmarshal(fastjson.QuoteNumericKeys([]byte(b)), &ci) != nil {
			continue
		}
		for _, bd := range ci.BrokerAddrTable {
			for _, a := range bd.BrokerAddrs {
				out[a] = true
			}
		}
	}
	return out
}
