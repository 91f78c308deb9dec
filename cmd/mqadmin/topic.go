package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/internal/fastjson"
	"github.com/rmqgo/nameserver/internal/javahash"
	"github.com/rmqgo/nameserver/namesrv/wire"
)

// topicRouteFormat is TopicRouteSubCommand's list layout.
const topicRouteFormat = "%-45s %-32s %-50s %-10s %-11s %-5s\n"

func setupTopicRoute(fs *flag.FlagSet) runFunc {
	var topic string
	var list bool
	strFlag(fs, &topic, "t", "topic", "topic name")
	boolFlag(fs, &list, "l", "list", "Use list format to print data")
	return func(e *env) error {
		ns, err := e.nameServers()
		if err == nil {
			err = required(opt("t", &topic))
		}
		if err != nil {
			return err
		}
		rd, err := e.client.TopicRouteAny(e.ctx, ns, topic)
		if err != nil {
			return err
		}
		switch {
		case e.json:
			var buf bytes.Buffer
			_ = json.Indent(&buf, wire.AppendTopicRouteData(nil, rd, wire.Standard), "", "  ")
			e.printf("%s\n", buf.Bytes())
		case list:
			printRouteList(e, rd)
		default:
			e.printf("%s\n", fastjson.Pretty(wire.AppendTopicRouteData(nil, rd, wire.FastjsonDefault)))
		}
		return nil
	}
}

// printRouteList prints a route as topicRoute -l does: one line per
// broker by name, a rule of 158 dashes and the totals.
func printRouteList(e *env, rd *wire.TopicRouteData) {
	queues := map[string]wire.QueueData{}
	for _, q := range rd.QueueDatas {
		queues[q.BrokerName] = q
	}
	brokers := slices.Clone(rd.BrokerDatas)
	slices.SortFunc(brokers, func(a, b wire.BrokerData) int { return strings.Compare(a.BrokerName, b.BrokerName) })
	e.printf(topicRouteFormat, "#ClusterName", "#BrokerName", "#BrokerAddrs", "#ReadQueue", "#WriteQueue", "#Perm")
	var read, write int32
	for _, b := range brokers {
		q := queues[b.BrokerName]
		read += q.ReadQueueNums
		write += q.WriteQueueNums
		e.printf(topicRouteFormat, b.Cluster, b.BrokerName, javaLongMap(b.BrokerAddrs),
			itoa(q.ReadQueueNums), itoa(q.WriteQueueNums), itoa(q.Perm))
	}
	e.printf("%s\n", strings.Repeat("-", 158))
	e.printf(topicRouteFormat, "Total:", itoa(int32(len(queues))), "", itoa(read), itoa(write), "")
}

func setupTopicList(fs *flag.FlagSet) runFunc {
	var clusterModel bool
	boolFlag(fs, &clusterModel, "c", "clusterModel", "clusterModel")
	return func(e *env) error {
		ns, err := e.nameServers()
		if err != nil {
			return err
		}
		topics, err := e.client.AllTopicsAny(e.ctx, ns)
		if err != nil {
			return err
		}
		topics = decodedSetOrder(topics)
		if clusterModel {
			return topicListClusters(e, ns, topics)
		}
		if e.json {
			return e.printJSON(topics)
		}
		for _, t := range topics {
			e.printf("%s\n", t)
		}
		return nil
	}
}

// decodedSetOrder orders a TopicList as Java's mqadmin iterates it:
// fastjson decodes the body's list into a HashSet, in body order.
func decodedSetOrder(topics []string) []string {
	return javahash.InsertionOrder(topics, javahash.HashMapDefault, javahash.StringHash)
}

// topicCluster is one line of topicList -c.
type topicCluster struct {
	Cluster       string `json:"cluster"`
	Topic         string `json:"topic"`
	ConsumerGroup string `json:"consumerGroup"`
}

// topicListClusters prints topicList -c: each topic (retry and DLQ topics
// skipped) with the cluster of its first broker. Consumer groups live on
// brokers, so the group column stays empty, as Java prints it when the
// broker query fails.
func topicListClusters(e *env, ns, topics []string) error {
	ci, err := e.client.ClusterInfoAny(e.ctx, ns)
	if err != nil {
		return err
	}
	rows := []topicCluster{}
	for _, t := range topics {
		if strings.HasPrefix(t, "%RETRY%") || strings.HasPrefix(t, "%DLQ%") {
			continue
		}
		cl := ""
		if rd, err := e.client.TopicRouteAny(e.ctx, ns, t); err == nil && len(rd.BrokerDatas) > 0 {
			cl = strings.Join(clustersOf(ci, rd.BrokerDatas[:1]), ",")
		}
		rows = append(rows, topicCluster{Cluster: cl, Topic: t})
	}
	if e.json {
		return e.printJSON(rows)
	}
	e.printf("%-20s  %-48s  %-48s\n", "#Cluster Name", "#Topic", "#Consumer Group")
	for _, r := range rows {
		e.printf("%-20s  %-64s  %-64s\n", frontStringAtLeast(r.Cluster, 20),
			frontStringAtLeast(r.Topic, 64), frontStringAtLeast(r.ConsumerGroup, 64))
	}
	return nil
}

// clustersOf returns the clusters whose broker lists name any of brokers.
func clustersOf(ci *wire.ClusterInfo, brokers []wire.BrokerData) []string {
	set := map[string]struct{}{}
	for c, names := range ci.ClusterAddrTable {
		for _, b := range brokers {
			if slices.Contains(names, b.BrokerName) {
				set[c] = struct{}{}
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func setupTopicClusterList(fs *flag.FlagSet) runFunc {
	var topic string
	strFlag(fs, &topic, "t", "topic", "topic name")
	return func(e *env) error {
		ns, err := e.nameServers()
		if err == nil {
			err = required(opt("t", &topic))
		}
		if err != nil {
			return err
		}
		ci, err := e.client.ClusterInfoAny(e.ctx, ns)
		if err != nil {
			return err
		}
		rd, err := e.client.TopicRouteAny(e.ctx, ns, topic)
		if err != nil {
			return err
		}
		clusters := clustersOf(ci, rd.BrokerDatas)
		if e.json {
			return e.printJSON(clusters)
		}
		for _, c := range clusters {
			e.printf("%s\n", c)
		}
		return nil
	}
}

func setupUpdateOrderConf(fs *flag.FlagSet) runFunc {
	var topic, conf, method string
	strFlag(fs, &topic, "t", "topic", "topic name")
	strFlag(fs, &conf, "v", "orderConf", "set order conf [eg. brokerName1:num;brokerName2:num]")
	strFlag(fs, &method, "m", "method", "option type [eg. put|get|delete")
	return func(e *env) error {
		ns, err := e.nameServers()
		if err == nil {
			err = required(opt("t", &topic), opt("m", &method))
		}
		if err != nil {
			return err
		}
		switch method {
		case "get":
			return orderConfGet(e, ns, topic)
		case "put":
			return orderConfPut(e, ns, topic, strings.TrimSpace(conf))
		case "delete":
			return orderConfDelete(e, ns, topic)
		}
		return usageErrorf("-m must be put, get or delete, not %q", method)
	}
}

func orderConfGet(e *env, ns []string, topic string) error {
	conf, err := e.client.GetKVAny(e.ctx, ns, admin.OrderTopicConfigNamespace, topic)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(map[string]string{"topic": topic, "orderConf": conf})
	}
	e.printf("get orderConf success. topic=[%s], orderConf=[%s]\n", topic, conf)
	return nil
}

func orderConfPut(e *env, ns []string, topic, conf string) error {
	if conf == "" {
		return usageErrorf("please set orderConf with option -v.")
	}
	res, err := fanOut(ns, each(func(a string) error {
		return e.client.PutKV(e.ctx, a, admin.OrderTopicConfigNamespace, topic, conf)
	}))
	if e.json {
		return fanOutJSON(e, map[string]any{"topic": topic, "orderConf": conf}, res, err)
	}
	if err == nil {
		e.printf("update orderConf success. topic=[%s], orderConf=[%s]\n", topic, conf)
	}
	return failedOn(res, err)
}

func orderConfDelete(e *env, ns []string, topic string) error {
	res, err := fanOut(ns, each(func(a string) error {
		return e.client.DeleteKV(e.ctx, a, admin.OrderTopicConfigNamespace, topic)
	}))
	if e.json {
		return fanOutJSON(e, map[string]any{"topic": topic}, res, err)
	}
	if err == nil {
		e.printf("delete orderConf success. topic=[%s]\n", topic)
	}
	return failedOn(res, err)
}

// javaLongMap renders a broker address map like Java's HashMap.toString
// for small ids: "{0=a, 1=b}" in ascending id order.
func javaLongMap(m map[int64]string) string {
	parts := make([]string, 0, len(m))
	for _, id := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, strconv.FormatInt(id, 10)+"="+m[id])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// frontStringAtLeast is Java's UtilAll.frontStringAtLeast: s cut to size.
func frontStringAtLeast(s string, size int) string {
	if len(s) > size {
		return s[:size]
	}
	return s
}

// itoa formats an int32 for %s columns.
func itoa(n int32) string { return strconv.FormatInt(int64(n), 10) }
