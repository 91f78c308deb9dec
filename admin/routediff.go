package admin

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/rmqgo/nameserver/namesrv/wire"
)

// Absent is the value a NameServer shows for something it does not have.
const Absent = "absent"

// routeFetchParallel bounds the route requests in flight per NameServer.
const routeFetchParallel = 8

// NodeView is what one NameServer reported.
type NodeView struct {
	Addr    string
	Cluster *wire.ClusterInfo
	Topics  []string                        // its topic list (nil with a single topic)
	Routes  map[string]*wire.TopicRouteData // topic -> route; missing topics absent
	Errs    []error                         // failures other than TOPIC_NOT_EXIST
}

// FetchViews asks every NameServer for its cluster info and topic list,
// then for the route of every topic in the union of the lists (or only of
// topic when it is not empty). NameServers are asked concurrently.
func (c *Client) FetchViews(ctx context.Context, addrs []string, topic string) []*NodeView {
	views := make([]*NodeView, len(addrs))
	forEach(len(addrs), len(addrs), func(i int) {
		views[i] = c.fetchListing(ctx, addrs[i], topic == "")
	})
	topics := []string{topic}
	if topic == "" {
		topics = unionTopics(views)
	}
	forEach(len(views), len(views), func(i int) { c.fetchRoutes(ctx, views[i], topics) })
	return views
}

// fetchListing asks one NameServer for cluster info and, if asked, topics.
func (c *Client) fetchListing(ctx context.Context, addr string, list bool) *NodeView {
	v := &NodeView{Addr: addr, Routes: map[string]*wire.TopicRouteData{}}
	var err error
	if v.Cluster, err = c.ClusterInfo(ctx, addr); err != nil {
		v.Errs = append(v.Errs, err)
		return v
	}
	if list {
		if v.Topics, err = c.AllTopics(ctx, addr); err != nil {
			v.Errs = append(v.Errs, err)
		}
	}
	return v
}

// fetchRoutes fills v.Routes for topics, unless v already failed.
func (c *Client) fetchRoutes(ctx context.Context, v *NodeView, topics []string) {
	if len(v.Errs) > 0 {
		return
	}
	var mu sync.Mutex
	forEach(len(topics), routeFetchParallel, func(i int) {
		rd, err := c.TopicRoute(ctx, v.Addr, topics[i])
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err == nil:
			v.Routes[topics[i]] = rd
		case !IsTopicNotExist(err):
			v.Errs = append(v.Errs, err)
		}
	})
}

// forEach runs fn(0..n-1) with at most par calls at a time.
func forEach(n, par int, fn func(i int)) {
	sem := make(chan struct{}, max(par, 1))
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			fn(i)
		}()
	}
	wg.Wait()
}

func unionTopics(views []*NodeView) []string {
	set := map[string]struct{}{}
	for _, v := range views {
		for _, t := range v.Topics {
			set[t] = struct{}{}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// NodeValue is what one NameServer shows for a compared item.
type NodeValue struct {
	NameServer string `json:"nameServer"`
	Value      string `json:"value"`
}

// Difference is one item that NameServers disagree on.
type Difference struct {
	Kind   string      `json:"kind"`   // "cluster", "broker" or "topic"
	Name   string      `json:"name"`   // cluster, broker or topic name
	Aspect string      `json:"aspect"` // what differs, e.g. "queues on broker-a"
	Values []NodeValue `json:"values"` // in NameServer order
}

// NodeError is a NameServer that could not be fully read.
type NodeError struct {
	NameServer string `json:"nameServer"`
	Error      string `json:"error"`
}

// RouteDiff is the comparison of the NameServers' route data.
type RouteDiff struct {
	NameServers []string     `json:"nameServers"`
	Clusters    int          `json:"clusters"`
	Brokers     int          `json:"brokers"`
	Topics      int          `json:"topics"`
	Differences []Difference `json:"differences"`
	Errors      []NodeError  `json:"errors"`
}

// Identical reports whether nothing differs and nothing failed.
func (d *RouteDiff) Identical() bool { return len(d.Differences) == 0 && len(d.Errors) == 0 }

// RouteDiff fetches the views of addrs (see FetchViews) and compares them.
func (c *Client) RouteDiff(ctx context.Context, addrs []string, topic string) *RouteDiff {
	return DiffViews(c.FetchViews(ctx, addrs, topic))
}

// DiffViews compares views cluster by cluster, broker by broker and topic
// by topic. Views that failed are reported in Errors and left out.
func DiffViews(views []*NodeView) *RouteDiff {
	d := &RouteDiff{Differences: []Difference{}, Errors: []NodeError{}}
	var ok []*NodeView
	for _, v := range views {
		d.NameServers = append(d.NameServers, v.Addr)
		for _, err := range v.Errs {
			d.Errors = append(d.Errors, NodeError{NameServer: v.Addr, Error: err.Error()})
		}
		if v.Cluster != nil {
			ok = append(ok, v)
		}
	}
	d.diffClusters(ok)
	d.diffBrokers(ok)
	d.diffTopics(ok)
	return d
}

func (d *RouteDiff) diffClusters(views []*NodeView) {
	names := unionKeys(views, func(v *NodeView) map[string][]string { return v.Cluster.ClusterAddrTable })
	d.Clusters = len(names)
	for _, n := range names {
		d.compare(views, "cluster", n, "brokers", func(v *NodeView) string {
			list, ok := v.Cluster.ClusterAddrTable[n]
			if !ok {
				return Absent
			}
			return strings.Join(slices.Sorted(slices.Values(list)), ",")
		})
	}
}

func (d *RouteDiff) diffBrokers(views []*NodeView) {
	names := unionKeys(views, func(v *NodeView) map[string]wire.BrokerData { return v.Cluster.BrokerAddrTable })
	d.Brokers = len(names)
	for _, n := range names {
		d.compare(views, "broker", n, "registration", func(v *NodeView) string {
			bd, ok := v.Cluster.BrokerAddrTable[n]
			if !ok {
				return Absent
			}
			return FormatBrokerData(bd)
		})
	}
}

func (d *RouteDiff) diffTopics(views []*NodeView) {
	topics := unionKeys(views, func(v *NodeView) map[string]*wire.TopicRouteData { return v.Routes })
	d.Topics = len(topics)
	for _, t := range topics {
		d.compare(views, "topic", t, "route", func(v *NodeView) string {
			if v.Routes[t] == nil {
				return Absent
			}
			return "present"
		})
		d.diffTopicRoutes(t, views)
	}
}

// diffTopicRoutes compares the queues of topic t among the views that
// have its route.
func (d *RouteDiff) diffTopicRoutes(t string, views []*NodeView) {
	var have []*NodeView
	for _, v := range views {
		if v.Routes[t] != nil {
			have = append(have, v)
		}
	}
	brokers := unionKeys(have, func(v *NodeView) map[string]wire.QueueData { return queuesByBroker(v.Routes[t]) })
	for _, b := range brokers {
		d.compare(have, "topic", t, "queues on "+b, func(v *NodeView) string {
			q, ok := queuesByBroker(v.Routes[t])[b]
			if !ok {
				return Absent
			}
			return FormatQueueData(q)
		})
	}
	d.compare(have, "topic", t, "orderTopicConf", func(v *NodeView) string { return v.Routes[t].OrderTopicConf })
}

// compare records a Difference when value differs between views.
func (d *RouteDiff) compare(views []*NodeView, kind, name, aspect string, value func(*NodeView) string) {
	vals := make([]NodeValue, len(views))
	same := true
	for i, v := range views {
		vals[i] = NodeValue{NameServer: v.Addr, Value: value(v)}
		same = same && vals[i].Value == vals[0].Value
	}
	if !same {
		d.Differences = append(d.Differences, Difference{Kind: kind, Name: name, Aspect: aspect, Values: vals})
	}
}

// unionKeys is the sorted union of the keys of m(v) over views.
func unionKeys[V any](views []*NodeView, m func(*NodeView) map[string]V) []string {
	set := map[string]struct{}{}
	for _, v := range views {
		for k := range m(v) {
			set[k] = struct{}{}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func queuesByBroker(rd *wire.TopicRouteData) map[string]wire.QueueData {
	m := make(map[string]wire.QueueData, len(rd.QueueDatas))
	for _, q := range rd.QueueDatas {
		m[q.BrokerName] = q
	}
	return m
}

// FormatBrokerData renders a broker group for comparison and display:
// "cluster=C addrs={0:a,1:b}" plus zone and acting-master when set.
func FormatBrokerData(bd wire.BrokerData) string {
	s := fmt.Sprintf("cluster=%s addrs=%s", bd.Cluster, FormatAddrs(bd.BrokerAddrs))
	if bd.ZoneName != "" {
		s += " zone=" + bd.ZoneName
	}
	if bd.EnableActingMaster {
		s += " enableActingMaster=true"
	}
	return s
}

// FormatAddrs renders broker addresses by ascending id: "{0:a,1:b}".
func FormatAddrs(addrs map[int64]string) string {
	parts := make([]string, 0, len(addrs))
	for _, id := range slices.Sorted(maps.Keys(addrs)) {
		parts = append(parts, fmt.Sprintf("%d:%s", id, addrs[id]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// FormatQueueData renders one broker's queues of a topic.
func FormatQueueData(q wire.QueueData) string {
	return fmt.Sprintf("read=%d write=%d perm=%s sysFlag=%d", q.ReadQueueNums, q.WriteQueueNums, PermString(q.Perm), q.TopicSysFlag)
}

// PermString renders perm bits like "6(RW-)" (R read, W write, X inherit).
func PermString(perm int32) string {
	flags := []byte("---")
	if perm&wire.PermRead != 0 {
		flags[0] = 'R'
	}
	if perm&wire.PermWrite != 0 {
		flags[1] = 'W'
	}
	if perm&wire.PermInherit != 0 {
		flags[2] = 'X'
	}
	return fmt.Sprintf("%d(%s)", perm, flags)
}
