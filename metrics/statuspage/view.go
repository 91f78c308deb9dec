package statuspage

import (
	"html"
	"strconv"
	"strings"
	"time"

	"github.com/rmqgo/nameserver/internal/version"
)

// view is what the template shows: every stranger's value cut to MaxText
// and every table to MaxRows, with the count of rows left out.
type view struct {
	Role, Release, Revision string
	Format                  int
	Listeners               []Listener
	Namesrv                 *namesrvView
	Controller              *controllerView
}

type namesrvView struct {
	Topics, Clusters, BrokerGroups, LiveBrokers int
	Brokers                                     []brokerRow
	More                                        int
}

type brokerRow struct {
	Cluster, Name, Addr, ID, Ago string
	Topics                       int
}

type controllerView struct {
	SelfID, LeaderID, RaftState, Term string
	ClusterVersion, Format            int
	Members                           []Member
	MoreMembers                       int
	MembersError                      string
	Sets                              []setRow
	TotalSets, MoreSets               int
}

type setRow struct {
	Name, Cluster, Master string
	HasMaster             bool
	MasterEpoch, SSEpoch  int32
	Sync                  []string
	MoreSync              int
}

func newView() view {
	return view{Release: cut(version.Version), Revision: cut(version.Revision()), Format: version.ControllerFormat}
}

func (v *view) addListeners(ls []Listener) {
	for _, l := range ls[:min(len(ls), MaxRows)] {
		v.Listeners = append(v.Listeners, Listener{Name: cut(l.Name), Addr: cut(l.Addr)})
	}
}

func (v *view) addNamesrv(ns Namesrv) {
	v.addListeners(ns.Listeners)
	nv := &namesrvView{Topics: ns.Topics, Clusters: ns.Clusters, BrokerGroups: ns.BrokerGroups,
		LiveBrokers: ns.LiveBrokers}
	shown := ns.Brokers[:min(len(ns.Brokers), MaxRows)]
	for _, b := range shown {
		nv.Brokers = append(nv.Brokers, brokerRow{Cluster: cut(b.Cluster), Name: cut(b.Name), Addr: cut(b.Addr),
			ID: strconv.FormatInt(b.ID, 10), Ago: ago(b.SinceHeartbeat), Topics: b.Topics})
	}
	nv.More = max(ns.LiveBrokers, len(ns.Brokers)) - len(shown)
	v.Namesrv = nv
}

func (v *view) addController(c Controller) {
	v.addListeners(c.Listeners)
	cv := &controllerView{SelfID: cut(c.SelfID), LeaderID: cut(c.LeaderID), RaftState: cut(c.RaftState),
		Term: cut(c.Term), ClusterVersion: c.ClusterVersion, Format: c.Format, MembersError: cut(c.MembersError)}
	for _, m := range c.Members[:min(len(c.Members), MaxRows)] {
		cv.Members = append(cv.Members, Member{ID: cut(m.ID), RaftAddr: cut(m.RaftAddr), Addr: cut(m.Addr), Voter: m.Voter})
	}
	cv.MoreMembers = len(c.Members) - len(cv.Members)
	shown := c.Sets[:min(len(c.Sets), MaxRows)]
	for _, s := range shown {
		cv.Sets = append(cv.Sets, newSetRow(s))
	}
	cv.TotalSets = max(c.TotalSets, len(c.Sets))
	cv.MoreSets = cv.TotalSets - len(shown)
	v.Controller = cv
}

func newSetRow(s BrokerSet) setRow {
	r := setRow{Name: cut(s.Name), Cluster: cut(s.Cluster), HasMaster: s.HasMaster,
		MasterEpoch: s.MasterEpoch, SSEpoch: s.SyncStateSetEpoch}
	if s.HasMaster {
		r.Master = member(s.MasterID, s.MasterAddr)
	}
	for _, m := range s.SyncStateSet[:min(len(s.SyncStateSet), MaxSync)] {
		r.Sync = append(r.Sync, member(m.ID, m.Addr))
	}
	r.MoreSync = len(s.SyncStateSet) - len(r.Sync)
	return r
}

// member is "id (addr)", or the id alone without an address.
func member(id int64, addr string) string {
	s := strconv.FormatInt(id, 10)
	if addr != "" {
		s += " (" + cut(addr) + ")"
	}
	return s
}

// ago is d in whole seconds, "N s ago" (a duration read on the monotonic
// clock; below zero is 0).
func ago(d time.Duration) string {
	return strconv.FormatInt(int64(max(d, 0)/time.Second), 10) + " s ago"
}

// cut makes s valid UTF-8 and at most MaxText bytes, marking a cut
// with an ellipsis.
func cut(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= MaxText {
		return s
	}
	s = strings.ToValidUTF8(s[:MaxText-len("…")], "")
	return s + "…"
}

func escape(s string) string { return html.EscapeString(cut(s)) }
