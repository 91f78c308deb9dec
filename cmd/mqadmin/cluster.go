package main

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rmqgo/nameserver/internal/javahash"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

// Java's clusterList layouts (ClusterListSubCommand).
const (
	clusterBaseHeader = "%-22s  %-22s  %-4s  %-22s %-16s  %16s  %30s  %-22s  %-11s  %-12s  %-8s  %-10s\n"
	clusterBaseRow    = "%-22s  %-22s  %-4s  %-22s %-16s  %16s  %30s  %-22s  %11s  %-12s  %-8s  %10s\n"
	clusterMoreHeader = "%-16s  %-32s %14s %14s %14s %14s\n"
	clusterMoreRow    = "%-16s  %-32s %14d %14d %14d %14d\n"
)

// clusterRow is one broker address of clusterList.
type clusterRow struct {
	Cluster    string            `json:"cluster"`
	BrokerName string            `json:"brokerName"`
	BrokerID   int64             `json:"brokerId"`
	Addr       string            `json:"addr"`
	Stats      map[string]string `json:"stats,omitempty"` // GET_BROKER_RUNTIME_INFO, when the broker answered
	StatsError string            `json:"statsError,omitempty"`
}

func setupClusterList(fs *flag.FlagSet) runFunc {
	var more bool
	var interval, cluster string
	boolFlag(fs, &more, "m", "moreStats", "Print more stats")
	strFlag(fs, &interval, "i", "interval", "specify intervals numbers, it is in seconds")
	strFlag(fs, &cluster, "c", "clusterName", "which cluster")
	return func(e *env) error {
		ns, err := e.nameServers()
		if err != nil {
			return err
		}
		every, err := parseSeconds(interval)
		if err != nil {
			return err
		}
		return repeat(e, every, func() error { return clusterListOnce(e, ns, strings.TrimSpace(cluster), more) })
	}
}

func clusterListOnce(e *env, ns []string, cluster string, more bool) error {
	ci, err := e.client.ClusterInfoAny(e.ctx, ns)
	if err != nil {
		return err
	}
	rows := clusterRows(e, ci, cluster)
	switch {
	case e.json:
		return e.printJSON(rows)
	case more:
		printClusterMore(e, rows)
	default:
		printClusterBase(e, rows)
	}
	return nil
}

// clusterRows lists every broker address of the selected clusters (all
// when cluster is empty) with its runtime stats: clusters in the order of
// the HashMap fastjson decodes clusterAddrTable into (same-bucket names by
// name), broker names sorted (Java's TreeSet), ids ascending.
func clusterRows(e *env, ci *wire.ClusterInfo, cluster string) []clusterRow {
	names := slices.Collect(maps.Keys(ci.ClusterAddrTable))
	javahash.Sort(names, javahash.HashMapDefault, javahash.StringHash, javahash.Compare)
	if cluster != "" {
		names = []string{cluster}
	}
	rows := []clusterRow{}
	for _, c := range names {
		for _, b := range slices.Sorted(slices.Values(ci.ClusterAddrTable[c])) {
			bd, ok := ci.BrokerAddrTable[b]
			if !ok {
				continue
			}
			for _, id := range slices.Sorted(maps.Keys(bd.BrokerAddrs)) {
				rows = append(rows, clusterRow{Cluster: c, BrokerName: b, BrokerID: id, Addr: bd.BrokerAddrs[id]})
			}
		}
	}
	for i := range rows {
		stats, err := e.client.BrokerRuntimeStats(e.ctx, rows[i].Addr)
		if err != nil {
			rows[i].StatsError = err.Error()
		}
		rows[i].Stats = stats
	}
	return rows
}

func printClusterBase(e *env, rows []clusterRow) {
	e.printf(clusterBaseHeader, "#Cluster Name", "#Broker Name", "#BID", "#Addr", "#Version",
		"#InTPS(LOAD)", "#OutTPS(LOAD)", "#Timer(Progress)", "#PCWait(ms)", "#Hour", "#SPACE", "#ACTIVATED")
	for _, r := range rows {
		s := newBrokerStats(r.Stats)
		e.printf(clusterBaseRow, r.Cluster, r.BrokerName, strconv.FormatInt(r.BrokerID, 10), r.Addr, s.version,
			fmt.Sprintf("%9.2f(%s,%sms)", s.in, s.sendQueue, s.sendWait),
			fmt.Sprintf("%9.2f(%s,%sms|%s,%sms)", s.out, s.pullQueue, s.pullWait, s.ackQueue, s.ackWait),
			fmt.Sprintf("%d-%d(%.1fw, %.1f, %.1f)", s.timerReadBehind, s.timerOffsetBehind,
				float64(s.timerCongest)/10000.0, s.timerEnqueueTps, s.timerDequeueTps),
			s.pageCacheLock, fmt.Sprintf("%2.2f", s.hour), fmt.Sprintf("%.4f", s.space), strconv.FormatBool(s.active))
	}
}

func printClusterMore(e *env, rows []clusterRow) {
	e.printf(clusterMoreHeader, "#Cluster Name", "#Broker Name", "#InTotalYest", "#OutTotalYest",
		"#InTotalToday", "#OutTotalToday")
	for _, r := range rows {
		get := func(k string) int64 { n, _ := strconv.ParseInt(r.Stats[k], 10, 64); return n }
		e.printf(clusterMoreRow, r.Cluster, r.BrokerName,
			get("msgPutTotalTodayMorning")-get("msgPutTotalYesterdayMorning"),
			get("msgGetTotalTodayMorning")-get("msgGetTotalYesterdayMorning"),
			get("msgPutTotalTodayNow")-get("msgPutTotalTodayMorning"),
			get("msgGetTotalTodayNow")-get("msgGetTotalTodayMorning"))
	}
}

// brokerStats is the clusterList columns derived from runtime stats;
// without stats everything is blank or zero, as Java prints it then.
type brokerStats struct {
	version, sendQueue, sendWait, pullQueue, pullWait, ackQueue, ackWait, pageCacheLock string
	in, out, hour, space                                                                float64
	timerReadBehind, timerOffsetBehind, timerCongest                                    int64
	timerEnqueueTps, timerDequeueTps                                                    float64
	active                                                                              bool
}

func newBrokerStats(m map[string]string) brokerStats {
	if m == nil {
		return brokerStats{}
	}
	or := func(k, def string) string {
		if v, ok := m[k]; ok {
			return v
		}
		return def
	}
	get := func(k string) string { return or(k, "null") } // Java's %s of a null String
	s := brokerStats{version: get("brokerVersionDesc"), sendQueue: get("sendThreadPoolQueueSize"),
		sendWait: get("sendThreadPoolQueueHeadWaitTimeMills"), pullQueue: get("pullThreadPoolQueueSize"),
		pullWait: get("pullThreadPoolQueueHeadWaitTimeMills"), ackQueue: or("ackThreadPoolQueueSize", "N"),
		ackWait: or("ackThreadPoolQueueHeadWaitTimeMills", "N"), pageCacheLock: get("pageCacheLockTimeMills")}
	s.in, s.out = firstFloat(m["putTps"]), firstFloat(m["getTransferredTps"])
	s.parseTimer(m)
	s.active, _ = strconv.ParseBool(m["brokerActive"])
	if ts, err := strconv.ParseInt(m["earliestMessageTimeStamp"], 10, 64); err == nil {
		s.hour = float64(time.Now().UnixMilli()-ts) / 1000 / 60 / 60
	}
	s.space = firstFloat(m["commitLogDiskRatio"])
	return s
}

// parseTimer reads the timer figures in Java's order, stopping at the
// first that does not parse: ClusterListSubCommand parses them in one try
// block, so that one and those after it stay 0.
func (s *brokerStats) parseTimer(m map[string]string) {
	ints := []struct {
		key string
		dst *int64
	}{{"timerReadBehind", &s.timerReadBehind}, {"timerOffsetBehind", &s.timerOffsetBehind}, {"timerCongestNum", &s.timerCongest}}
	for _, f := range ints {
		n, err := strconv.ParseInt(m[f.key], 10, 64)
		if err != nil {
			return
		}
		*f.dst = n
	}
	floats := []struct {
		key string
		dst *float64
	}{{"timerEnqueueTps", &s.timerEnqueueTps}, {"timerDequeueTps", &s.timerDequeueTps}}
	for _, f := range floats {
		v, err := strconv.ParseFloat(m[f.key], 32) // Float.parseFloat
		if err != nil {
			return
		}
		*f.dst = v
	}
}

// firstFloat parses the first space-separated token of s (0 if none).
func firstFloat(s string) float64 {
	f, _ := strconv.ParseFloat(strings.SplitN(strings.TrimSpace(s), " ", 2)[0], 64)
	return f
}

// parseSeconds parses an -i interval in seconds; "" means none.
func parseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, usageErrorf("-i must be a positive number of seconds, not %q", s)
	}
	return time.Duration(n) * time.Second, nil
}

// repeat runs fn once, or every interval until the context ends.
func repeat(e *env, every time.Duration, fn func() error) error {
	for {
		if err := fn(); err != nil || every == 0 {
			return err
		}
		select {
		case <-e.ctx.Done():
			return nil
		case <-time.After(every):
		}
	}
}
