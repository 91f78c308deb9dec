package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

func TestRouteDiffIdentical(t *testing.T) {
	t.Parallel()
	nss := startNSs(t, 3)
	startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), nss...)
	startBroker(t, topicBroker("broker-b", fakebroker.Topic("T", 2)), nss...)
	out := requireOK(t, mqadmin(t, "routeDiff", "-n", nsList(nss...)))
	require.Contains(t, out, "identical on 3 NameServers")
	require.Contains(t, out, "#Compared\t1 clusters, 2 brokers, ")
	requireOK(t, mqadmin(t, "routeDiff", "-n", nsList(nss...), "-t", "T"))
}

func TestRouteDiffNamesTheMissedRegistration(t *testing.T) {
	t.Parallel()
	nss := startNSs(t, 3)
	startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), nss...)
	startBroker(t, topicBroker("broker-b", fakebroker.Topic("T", 2), fakebroker.Topic("OnlyB", 1)), nss[0], nss[1])

	r := mqadmin(t, "routeDiff", "-n", nsList(nss...))
	require.Equal(t, exitFail, r.code, r.errOut)
	require.Contains(t, r.out, "[broker broker-b] registration differs\n")
	require.Regexp(t, `(?m)^    `+nss[2]+`\s+absent$`, r.out)
	require.Contains(t, r.out, "[cluster DefaultCluster] brokers differs\n")
	require.Contains(t, r.out, "[topic T] queues on broker-b differs\n")
	require.Contains(t, r.out, "[topic OnlyB] route differs\n")

	r = mqadmin(t, "routeDiff", "-n", nsList(nss...), "-t", "T", "--json")
	require.Equal(t, exitFail, r.code)
	var d admin.RouteDiff
	require.NoError(t, json.Unmarshal([]byte(r.out), &d))
	require.Equal(t, 1, d.Topics)
	var topicDiffs []admin.Difference
	for _, df := range d.Differences {
		if df.Kind == "topic" {
			topicDiffs = append(topicDiffs, df)
		}
	}
	require.Len(t, topicDiffs, 1)
	require.Equal(t, "queues on broker-b", topicDiffs[0].Aspect)
	require.Equal(t, admin.Absent, topicDiffs[0].Values[2].Value)
	require.Contains(t, topicDiffs[0].Values[0].Value, "write=2")
}

func TestRouteDiffQueueCountsDiffer(t *testing.T) {
	t.Parallel()
	nss := startNSs(t, 2)
	b := startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), nss...)
	b.SetTopic(fakebroker.Topic("T", 8))
	_, err := b.Register(testCtx(t), nss[0])
	require.NoError(t, err)
	r := mqadmin(t, "routeDiff", "-n", nsList(nss...), "-t", "T")
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.out, "[topic T] queues on broker-a differs\n")
	require.Regexp(t, `(?m)^    `+nss[0]+`\s+read=8 write=8 perm=6\(RW-\) sysFlag=0$`, r.out)
}

func TestRouteDiffErrorExitsTwo(t *testing.T) {
	t.Parallel()
	ns := startNS(t)
	startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), ns)
	dead := closedAddr(t)
	r := mqadmin(t, "routeDiff", "-n", nsList(ns, dead))
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.out, "[error] "+dead+": unreachable")
	require.Contains(t, r.errOut, "1 error(s) reading the NameServers")
}
