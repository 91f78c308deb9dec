package main

import (
	"flag"

	"github.com/rmqgo/nameserver/admin"
)

// noClusterMessage is what Java's CommandUtil prints for an unknown
// cluster (ERROR_MESSAGE, after "[error] ", without a line break).
const noClusterMessage = "[error] Make sure the specified clusterName exists or the name server connected to is correct."

// setupDeleteTopic is DeleteTopicSubCommand: DELETE_TOPIC_IN_BROKER (215)
// to every master of the cluster, one after the other, stopping at the
// first failure; then DELETE_TOPIC_IN_NAMESRV (216) to every NameServer.
func setupDeleteTopic(fs *flag.FlagSet) runFunc {
	var topic, cluster string
	strFlag(fs, &topic, "t", "topic", "topic name")
	strFlag(fs, &cluster, "c", "clusterName", "delete topic from which cluster")
	return func(e *env) error {
		ns, err := e.nameServers()
		if err == nil {
			err = required(opt("t", &topic), opt("c", &cluster))
		}
		if err != nil {
			return err
		}
		return deleteTopic(e, ns, topic, cluster)
	}
}

func deleteTopic(e *env, ns []string, topic, cluster string) error {
	ci, err := e.client.ClusterInfoAny(e.ctx, ns)
	if err != nil {
		return err
	}
	masters, known := admin.MasterAddrs(ci, cluster)
	if !known && !e.json {
		e.printf("%s", noClusterMessage)
	}
	brokers, err := deleteInBrokers(e, masters, topic)
	if err != nil {
		if e.json {
			return fanOutJSON(e, map[string]any{"topic": topic, "cluster": cluster, "step": "broker"}, brokers, err)
		}
		return failedOn(brokers, err)
	}
	if !e.json {
		e.printf("delete topic [%s] from cluster [%s] success.\n", topic, cluster)
	}
	res, err := fanOut(ns, each(func(a string) error { return e.client.DeleteTopic(e.ctx, a, topic, cluster) }))
	if e.json {
		return fanOutJSON(e, map[string]any{"topic": topic, "cluster": cluster, "brokers": brokers}, res, err)
	}
	if err == nil {
		e.printf("delete topic [%s] from NameServer success.\n", topic)
	}
	return failedOn(res, err)
}

// deleteInBrokers asks each master in turn and stops at the first failure,
// as DefaultMQAdminExtImpl.deleteTopicInBroker does.
func deleteInBrokers(e *env, masters []string, topic string) ([]nodeResult, error) {
	res := make([]nodeResult, 0, len(masters))
	for _, a := range masters {
		if err := e.client.DeleteTopicInBroker(e.ctx, a, topic); err != nil {
			return append(res, nodeResult{Addr: a, Error: err.Error()}), err
		}
		res = append(res, nodeResult{Addr: a, OK: true})
	}
	return res, nil
}
