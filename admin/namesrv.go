package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// OrderTopicConfigNamespace is the KV namespace of order-topic configs
// (NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG), values "brokerName:queueNums;...".
const OrderTopicConfigNamespace = "ORDER_TOPIC_CONFIG"

// AutoCreateTopicKey is the topic a broker registers when
// autoCreateTopicEnable is on (TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC).
const AutoCreateTopicKey = "TBW102"

// getBrokerRuntimeInfo is GET_BROKER_RUNTIME_INFO (28), a broker code.
const getBrokerRuntimeInfo int32 = 28

// IsTopicNotExist reports whether err is a TOPIC_NOT_EXIST (17) reply.
func IsTopicNotExist(err error) bool {
	code, ok := ResponseCode(err)
	return ok && code == remoting.TopicNotExist
}

// ClusterInfo asks GET_BROKER_CLUSTER_INFO (106).
func (c *Client) ClusterInfo(ctx context.Context, addr string) (*wire.ClusterInfo, error) {
	resp, err := c.call(ctx, addr, remoting.GetBrokerClusterInfo, nil, nil)
	if err != nil {
		return nil, err
	}
	return decoded(addr, "cluster info", resp.Body, wire.DecodeClusterInfo)
}

// TopicRoute asks GET_ROUTEINFO_BY_TOPIC (105); a missing topic is a
// *ResponseError with code TOPIC_NOT_EXIST (see IsTopicNotExist).
func (c *Client) TopicRoute(ctx context.Context, addr, topic string) (*wire.TopicRouteData, error) {
	resp, err := c.call(ctx, addr, remoting.GetRouteinfoByTopic, map[string]string{"topic": topic}, nil)
	if err != nil {
		return nil, err
	}
	return decoded(addr, "route of "+topic, resp.Body, wire.DecodeTopicRouteData)
}

// AllTopics asks GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206).
func (c *Client) AllTopics(ctx context.Context, addr string) ([]string, error) {
	return c.topicList(ctx, addr, remoting.GetAllTopicListFromNameserver, map[string]string{})
}

// TopicsByCluster asks GET_TOPICS_BY_CLUSTER (224).
func (c *Client) TopicsByCluster(ctx context.Context, addr, cluster string) ([]string, error) {
	return c.topicList(ctx, addr, remoting.GetTopicsByCluster, map[string]string{"cluster": cluster})
}

func (c *Client) topicList(ctx context.Context, addr string, code int32, ext map[string]string) ([]string, error) {
	resp, err := c.call(ctx, addr, code, ext, nil)
	if err != nil {
		return nil, err
	}
	tl, err := decoded(addr, "topic list", resp.Body, wire.DecodeTopicList)
	if err != nil {
		return nil, err
	}
	return tl.TopicList, nil
}

// PutKV asks PUT_KV_CONFIG (100).
func (c *Client) PutKV(ctx context.Context, addr, namespace, key, value string) error {
	_, err := c.call(ctx, addr, remoting.PutKVConfig,
		map[string]string{"namespace": namespace, "key": key, "value": value}, nil)
	return err
}

// GetKV asks GET_KV_CONFIG (101); a missing key is a *ResponseError with
// code QUERY_NOT_FOUND (22).
func (c *Client) GetKV(ctx context.Context, addr, namespace, key string) (string, error) {
	resp, err := c.call(ctx, addr, remoting.GetKVConfig, map[string]string{"namespace": namespace, "key": key}, nil)
	if err != nil {
		return "", err
	}
	return resp.ExtFields["value"], nil
}

// DeleteKV asks DELETE_KV_CONFIG (102).
func (c *Client) DeleteKV(ctx context.Context, addr, namespace, key string) error {
	_, err := c.call(ctx, addr, remoting.DeleteKVConfig, map[string]string{"namespace": namespace, "key": key}, nil)
	return err
}

// KVList asks GET_KVLIST_BY_NAMESPACE (219).
func (c *Client) KVList(ctx context.Context, addr, namespace string) (map[string]string, error) {
	resp, err := c.call(ctx, addr, remoting.GetKVListByNamespace, map[string]string{"namespace": namespace}, nil)
	if err != nil {
		return nil, err
	}
	return decoded(addr, "KV table", resp.Body, wire.DecodeKVTable)
}

// NamesrvConfig asks GET_NAMESRV_CONFIG (319); properties come sorted by key.
func (c *Client) NamesrvConfig(ctx context.Context, addr string) ([]Property, error) {
	resp, err := c.call(ctx, addr, remoting.GetNamesrvConfig, nil, nil)
	if err != nil {
		return nil, err
	}
	return ParseProperties(resp.Body), nil
}

// UpdateNamesrvConfig asks UPDATE_NAMESRV_CONFIG (318) with props.
func (c *Client) UpdateNamesrvConfig(ctx context.Context, addr string, props []Property) error {
	_, err := c.call(ctx, addr, remoting.UpdateNamesrvConfig, nil, FormatProperties(props))
	return err
}

// WipeWritePerm asks WIPE_WRITE_PERM_OF_BROKER (205) and returns the
// number of topics touched.
func (c *Client) WipeWritePerm(ctx context.Context, addr, brokerName string) (int, error) {
	return c.permCount(ctx, addr, remoting.WipeWritePermOfBroker, brokerName, "wipeTopicCount")
}

// AddWritePerm asks ADD_WRITE_PERM_OF_BROKER (327) and returns the number
// of topics touched.
func (c *Client) AddWritePerm(ctx context.Context, addr, brokerName string) (int, error) {
	return c.permCount(ctx, addr, remoting.AddWritePermOfBroker, brokerName, "addTopicCount")
}

func (c *Client) permCount(ctx context.Context, addr string, code int32, brokerName, key string) (int, error) {
	resp, err := c.call(ctx, addr, code, map[string]string{"brokerName": brokerName}, nil)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(resp.ExtFields[key])
	if err != nil {
		return 0, fmt.Errorf("%s: bad %s %q", addr, key, resp.ExtFields[key])
	}
	return n, nil
}

// DeleteTopic asks DELETE_TOPIC_IN_NAMESRV (216); an empty cluster
// removes the topic from every broker.
func (c *Client) DeleteTopic(ctx context.Context, addr, topic, cluster string) error {
	ext := map[string]string{"topic": topic}
	if cluster != "" {
		ext["clusterName"] = cluster
	}
	_, err := c.call(ctx, addr, remoting.DeleteTopicInNamesrv, ext, nil)
	return err
}

// deleteTopicInBroker is DELETE_TOPIC_IN_BROKER (215), a broker code.
const deleteTopicInBroker int32 = 215

// DeleteTopicInBroker asks a broker DELETE_TOPIC_IN_BROKER (215)
// (MQClientAPIImpl.deleteTopicInBroker, DeleteTopicRequestHeader).
func (c *Client) DeleteTopicInBroker(ctx context.Context, brokerAddr, topic string) error {
	_, err := c.call(ctx, brokerAddr, deleteTopicInBroker, map[string]string{"topic": topic}, nil)
	return err
}

// MasterAddrs returns the master (id 0) address of every broker name of
// cluster, sorted, and whether ci knows the cluster
// (CommandUtil.fetchMasterAddrByClusterName).
func MasterAddrs(ci *wire.ClusterInfo, cluster string) ([]string, bool) {
	names, ok := ci.ClusterAddrTable[cluster]
	var addrs []string
	for _, name := range names {
		if bd, found := ci.BrokerAddrTable[name]; found {
			if a, isSet := bd.BrokerAddrs[0]; isSet && !slices.Contains(addrs, a) {
				addrs = append(addrs, a)
			}
		}
	}
	slices.Sort(addrs)
	return addrs, ok
}

// BrokerRuntimeStats asks a broker GET_BROKER_RUNTIME_INFO (28), the
// figures behind clusterList's columns.
func (c *Client) BrokerRuntimeStats(ctx context.Context, brokerAddr string) (map[string]string, error) {
	resp, err := c.call(ctx, brokerAddr, getBrokerRuntimeInfo, nil, nil)
	if err != nil {
		return nil, err
	}
	return decoded(brokerAddr, "runtime info", resp.Body, wire.DecodeKVTable)
}

// decoded runs a body decoder and names the address and body on failure.
func decoded[T any](addr, what string, b []byte, dec func([]byte) (T, error)) (T, error) {
	v, err := dec(b)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s: cannot decode %s: %w", addr, what, err)
	}
	return v, nil
}

// ErrNoNameServer is returned when no NameServer address was given.
var ErrNoNameServer = errors.New("no NameServer address: use -n \"host:port;host:port\" or NAMESRV_ADDR")

// ClusterInfoAny asks the first reachable NameServer of addrs.
func (c *Client) ClusterInfoAny(ctx context.Context, addrs []string) (*wire.ClusterInfo, error) {
	return firstAnswer(addrs, func(a string) (*wire.ClusterInfo, error) { return c.ClusterInfo(ctx, a) })
}

// TopicRouteAny asks the first reachable NameServer of addrs.
func (c *Client) TopicRouteAny(ctx context.Context, addrs []string, topic string) (*wire.TopicRouteData, error) {
	return firstAnswer(addrs, func(a string) (*wire.TopicRouteData, error) { return c.TopicRoute(ctx, a, topic) })
}

// AllTopicsAny asks the first reachable NameServer of addrs.
func (c *Client) AllTopicsAny(ctx context.Context, addrs []string) ([]string, error) {
	return firstAnswer(addrs, func(a string) ([]string, error) { return c.AllTopics(ctx, a) })
}

// GetKVAny asks the first reachable NameServer of addrs.
func (c *Client) GetKVAny(ctx context.Context, addrs []string, namespace, key string) (string, error) {
	return firstAnswer(addrs, func(a string) (string, error) { return c.GetKV(ctx, a, namespace, key) })
}
