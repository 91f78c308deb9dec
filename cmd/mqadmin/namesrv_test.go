package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

func TestKvConfigOnEveryNameServer(t *testing.T) {
	t.Parallel()
	nss := startNSs(t, 2)
	n := nsList(nss...)
	out := requireOK(t, mqadmin(t, "updateKvConfig", "-n", n, "-s", "NS", "-k", "key", "-v", "value"))
	require.Equal(t, "create or update kv config to namespace success.\n", out)
	c := admin.New(admin.Options{})
	defer c.Close()
	for _, ns := range nss {
		v, err := c.GetKV(testCtx(t), ns, "NS", "key")
		require.NoError(t, err)
		require.Equal(t, "value", v)
	}
	out = requireOK(t, mqadmin(t, "deleteKvConfig", "-n", n, "-s", "NS", "-k", "key"))
	require.Equal(t, "delete kv config from namespace success.\n", out)
	for _, ns := range nss {
		_, err := c.GetKV(testCtx(t), ns, "NS", "key")
		code, _ := admin.ResponseCode(err)
		require.EqualValues(t, 22, code)
	}
}

func TestKvConfigReportsThePartialFailure(t *testing.T) {
	t.Parallel()
	ns, dead := startNS(t), closedAddr(t)
	r := mqadmin(t, "updateKvConfig", "-n", nsList(ns, dead), "-s", "NS", "-k", "k", "-v", "v", "--json")
	require.Equal(t, exitFail, r.code)
	var res struct {
		OK      bool         `json:"ok"`
		Results []nodeResult `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.out), &res))
	require.False(t, res.OK)
	require.True(t, res.Results[0].OK)
	require.False(t, res.Results[1].OK)
	require.Contains(t, r.errOut, "failed on 1 of 2 servers")
}

func TestNamesrvConfig(t *testing.T) {
	t.Parallel()
	nss := startNSs(t, 2)
	n := nsList(nss...)
	out := requireOK(t, mqadmin(t, "getNamesrvConfig", "-n", n))
	require.Contains(t, out, "============"+nss[0]+"============\n")
	require.Contains(t, out, "============"+nss[1]+"============\n")
	require.Contains(t, out, fmt.Sprintf("%-50s=  %s\n", "enableAllTopicList", "true"))

	out = requireOK(t, mqadmin(t, "updateNamesrvConfig", "-n", n, "-k", "enableAllTopicList", "-v", "false"))
	require.Equal(t, fmt.Sprintf("update name server config success![%s, %s]\nenableAllTopicList : false\n", nss[0], nss[1]), out)
	r := mqadmin(t, "topicList", "-n", nss[1])
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.errOut, "disable")

	var cfgs []serverConfig
	require.NoError(t, json.Unmarshal([]byte(requireOK(t, mqadmin(t, "getNamesrvConfig", "-n", nss[0], "--json"))), &cfgs))
	require.Contains(t, cfgs[0].Properties, admin.Property{Key: "enableAllTopicList", Value: "false"})

	r = mqadmin(t, "updateNamesrvConfig", "-n", n, "-k", "kvConfigPath", "-v", "/tmp/x")
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.errOut, "code 16: Can not update config in black list.")
}

func TestWriteWipeAndAdd(t *testing.T) {
	t.Parallel()
	nss := startNSs(t, 2)
	n := nsList(nss...)
	startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), nss...)
	out := requireOK(t, mqadmin(t, "wipeWritePerm", "-n", n, "-b", "broker-a"))
	for _, ns := range nss {
		require.Regexp(t, `wipe write perm of broker\[broker-a\] in name server\[`+ns+`\] OK, [1-9]\d*\n`, out)
		require.Equal(t, wire.PermRead, topicPerm(t, ns, "T"))
	}
	out = requireOK(t, mqadmin(t, "addWritePerm", "-n", n, "-b", "broker-a"))
	require.Equal(t, 2, strings.Count(out, "add write perm of broker[broker-a] in name server["))
	for _, ns := range nss {
		require.Equal(t, wire.PermRead|wire.PermWrite, topicPerm(t, ns, "T"))
	}
	dead := closedAddr(t)
	r := mqadmin(t, "addWritePerm", "-n", nsList(nss[0], dead), "-b", "broker-a")
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.out, "add write perm of broker[broker-a] in name server["+dead+"] Failed\n")
}

// topicPerm is the perm of the topic's first queue on ns.
func topicPerm(t *testing.T, ns, topic string) int32 {
	t.Helper()
	c := admin.New(admin.Options{})
	defer c.Close()
	rd, err := c.TopicRoute(testCtx(t), ns, topic)
	require.NoError(t, err)
	return rd.QueueDatas[0].Perm
}
