package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

func TestClusterList(t *testing.T) {
	t.Parallel()
	ns := startNS(t)
	a := startBroker(t, topicBroker("broker-a"), ns)
	startBroker(t, fakebroker.Config{ClusterName: "OtherCluster", BrokerName: "broker-b"}, ns)
	out := requireOK(t, mqadmin(t, "clusterList", "-n", ns))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3)
	require.True(t, strings.HasPrefix(lines[0], "#Cluster Name           #Broker Name            #BID  #Addr"))
	// Java iterates the decoded clusterAddrTable, a HashMap: OtherCluster
	// (bucket 8 of 16) before DefaultCluster (15).
	require.True(t, strings.HasPrefix(lines[1], "OtherCluster"))
	require.Regexp(t, `^DefaultCluster\s+broker-a\s+0\s+`+a.Addr()+`\s+0\.00\(,ms\)`, lines[2])

	out = requireOK(t, mqadmin(t, "clusterList", "-n", ns, "-c", "OtherCluster", "-m"))
	require.Contains(t, out, "#InTotalYest")
	require.Contains(t, out, "broker-b")
	require.NotContains(t, out, "broker-a")

	var rows []clusterRow
	require.NoError(t, json.Unmarshal([]byte(requireOK(t, mqadmin(t, "clusterList", "-n", ns, "--json"))), &rows))
	require.Len(t, rows, 2)
	require.Equal(t, a.Addr(), rows[1].Addr)
	require.NotEmpty(t, rows[1].StatsError, "the fake broker does not serve runtime info")
}

func TestTopicRoute(t *testing.T) {
	t.Parallel()
	ns := startNS(t)
	a := startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), ns)
	out := requireOK(t, mqadmin(t, "topicRoute", "-n", ns, "-t", "T"))
	require.True(t, strings.HasPrefix(out, "{\n\t\"brokerDatas\":[\n\t\t{\n\t\t\t\"brokerAddrs\":{\n\t\t\t\t0:\""+a.Addr()), out)
	require.Contains(t, out, "\"filterServerTable\":{}")
	require.Contains(t, out, "\t\t\t\"writeQueueNums\":4\n")

	out = requireOK(t, mqadmin(t, "topicRoute", "-n", ns, "-t", "T", "-l"))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 4)
	require.Equal(t, "#ClusterName                                  #BrokerName                      #BrokerAddrs                                       #ReadQueue #WriteQueue #Perm", lines[0])
	require.Regexp(t, `^DefaultCluster\s+broker-a\s+\{0=`+a.Addr()+`\}\s+4\s+4\s+6\s*$`, lines[1])
	require.Equal(t, strings.Repeat("-", 158), lines[2])
	require.Regexp(t, `^Total:\s+1\s+4\s+4\s*$`, lines[3])

	var rd map[string]any
	require.NoError(t, json.Unmarshal([]byte(requireOK(t, mqadmin(t, "topicRoute", "-n", ns, "-t", "T", "--json"))), &rd))
	require.Len(t, rd["queueDatas"], 1)

	r := mqadmin(t, "topicRoute", "-n", ns, "-t", "Nope")
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.errOut, "code 17: No topic route info in name server for the topic: Nope")
}

func TestTopicRouteFallsBackToNextNameServer(t *testing.T) {
	t.Parallel()
	ns := startNS(t)
	startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), ns)
	requireOK(t, mqadmin(t, "topicRoute", "-n", nsList(closedAddr(t), ns), "-t", "T", "-l"))
}

func TestTopicListAndClusterList(t *testing.T) {
	t.Parallel()
	ns := startNS(t)
	startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4), fakebroker.Topic("%RETRY%g", 1)), ns)
	startBroker(t, fakebroker.Config{ClusterName: "C2", BrokerName: "broker-b", Topics: []fakebroker.TopicConfig{fakebroker.Topic("T", 2)}}, ns)
	out := requireOK(t, mqadmin(t, "topicList", "-n", ns))
	topics := strings.Split(strings.TrimSpace(out), "\n")
	require.Contains(t, topics, "T")
	require.Contains(t, topics, "%RETRY%g")

	out = requireOK(t, mqadmin(t, "topicList", "-n", ns, "-c"))
	require.True(t, strings.HasPrefix(out, "#Cluster Name         #Topic"))
	require.NotContains(t, out, "%RETRY%")
	require.Regexp(t, `(?m)^(DefaultCluster|C2)\s+T\s*$`, out)

	var list []string
	require.NoError(t, json.Unmarshal([]byte(requireOK(t, mqadmin(t, "topicList", "-n", ns, "--json"))), &list))
	require.ElementsMatch(t, topics, list)

	out = requireOK(t, mqadmin(t, "topicClusterList", "-n", ns, "-t", "T"))
	require.Equal(t, "C2\nDefaultCluster\n", out)
}

func TestDeleteTopicOnEveryNameServer(t *testing.T) {
	t.Parallel()
	nss := startNSs(t, 2)
	startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), nss...)
	out := requireOK(t, mqadmin(t, "deleteTopic", "-n", nsList(nss...), "-t", "T", "-c", "DefaultCluster"))
	require.Equal(t, "delete topic [T] from cluster [DefaultCluster] success.\ndelete topic [T] from NameServer success.\n", out)
	c := admin.New(admin.Options{})
	defer c.Close()
	for _, ns := range nss {
		_, err := c.TopicRoute(testCtx(t), ns, "T")
		require.True(t, admin.IsTopicNotExist(err), ns)
	}
}

func TestUpdateOrderConf(t *testing.T) {
	t.Parallel()
	nss := startNSs(t, 2)
	n := nsList(nss...)
	out := requireOK(t, mqadmin(t, "updateOrderConf", "-n", n, "-t", "T", "-m", "put", "-v", "broker-a:4"))
	require.Equal(t, "update orderConf success. topic=[T], orderConf=[broker-a:4]\n", out)
	c := admin.New(admin.Options{})
	defer c.Close()
	v, err := c.GetKV(testCtx(t), nss[1], admin.OrderTopicConfigNamespace, "T")
	require.NoError(t, err)
	require.Equal(t, "broker-a:4", v)
	out = requireOK(t, mqadmin(t, "updateOrderConf", "-n", n, "-t", "T", "-m", "get"))
	require.Equal(t, "get orderConf success. topic=[T], orderConf=[broker-a:4]\n", out)
	out = requireOK(t, mqadmin(t, "updateOrderConf", "-n", n, "-t", "T", "-m", "delete"))
	require.Equal(t, "delete orderConf success. topic=[T]\n", out)
	r := mqadmin(t, "updateOrderConf", "-n", n, "-t", "T", "-m", "get")
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.errOut, "code 22")
}

func TestJavaFormatting(t *testing.T) {
	require.Equal(t, "{0=a, 1=b}", javaLongMap(map[int64]string{1: "b", 0: "a"}))
	require.Equal(t, "[x, y]", javaList([]string{"x", "y"}))
	require.Equal(t, "abc", frontStringAtLeast("abcdef", 3))
	require.Equal(t, "ab", frontStringAtLeast("ab", 3))
	require.InDelta(t, 12.5, firstFloat("12.5 11.0 10.0"), 1e-9)
}

// deleteTopic is DeleteTopicSubCommand: DELETE_TOPIC_IN_BROKER (215) to
// every master of the cluster first, then DELETE_TOPIC_IN_NAMESRV (216) to
// every NameServer.
func TestDeleteTopicFromBrokersThenNameServers(t *testing.T) {
	t.Parallel()
	nss := startNSs(t, 2)
	master := startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), nss...)
	slave := startBroker(t, fakebroker.Config{BrokerName: "broker-a", BrokerID: 1,
		Topics: []fakebroker.TopicConfig{fakebroker.Topic("T", 4)}}, nss...)
	other := startBroker(t, fakebroker.Config{ClusterName: "C2", BrokerName: "broker-c",
		Topics: []fakebroker.TopicConfig{fakebroker.Topic("T", 4)}}, nss...)
	out := requireOK(t, mqadmin(t, "deleteTopic", "-n", nsList(nss...), "-t", "T", "-c", "DefaultCluster"))
	require.Equal(t, "delete topic [T] from cluster [DefaultCluster] success.\n"+
		"delete topic [T] from NameServer success.\n", out)
	req, err := master.WaitRequest(testCtx(t), fakebroker.DeleteTopicInBroker)
	require.NoError(t, err)
	require.Equal(t, "T", req.ExtFields["topic"])
	require.NotContains(t, master.TopicConfigs(), "T")
	require.Zero(t, slave.RequestCount(fakebroker.DeleteTopicInBroker), "slaves are not asked")
	require.Zero(t, other.RequestCount(fakebroker.DeleteTopicInBroker), "other clusters are not asked")
	require.Contains(t, slave.TopicConfigs(), "T")
}

// A broker that cannot delete stops the command before any NameServer is
// asked, as Java's (deleteTopicInBroker throws first).
func TestDeleteTopicBrokerFailureLeavesNameServers(t *testing.T) {
	t.Parallel()
	ns := startNS(t)
	b, err := fakebroker.New(topicBroker("broker-a", fakebroker.Topic("T", 4)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	registerAs(t, b, ns, closedAddr(t))
	r := mqadmin(t, "deleteTopic", "-n", ns, "-t", "T", "-c", "DefaultCluster")
	require.Equal(t, exitFail, r.code, r.out)
	require.NotContains(t, r.out, "from NameServer success")
	c := admin.New(admin.Options{})
	defer c.Close()
	_, err = c.TopicRoute(testCtx(t), ns, "T")
	require.NoError(t, err, "the NameServer still has the topic")
}

// An unknown cluster prints Java's CommandUtil error and still deletes the
// topic from the NameServers.
func TestDeleteTopicUnknownCluster(t *testing.T) {
	t.Parallel()
	ns := startNS(t)
	startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), ns)
	out := requireOK(t, mqadmin(t, "deleteTopic", "-n", ns, "-t", "T", "-c", "Nope"))
	require.Equal(t, "[error] Make sure the specified clusterName exists or the name server connected to is correct."+
		"delete topic [T] from cluster [Nope] success.\n"+
		"delete topic [T] from NameServer success.\n", out)
}
