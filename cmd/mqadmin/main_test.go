package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHelpAndUnknownCommand(t *testing.T) {
	t.Parallel()
	r := mqadmin(t)
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.out, "routeDiff")
	require.Equal(t, exitOK, mqadmin(t, "help").code)
	r = mqadmin(t, "help", "topicRoute")
	require.Equal(t, exitOK, r.code)
	require.Contains(t, r.out, "-t")
	r = mqadmin(t, "nope")
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.errOut, `unknown command "nope"`)
	require.Equal(t, exitOK, mqadmin(t, "clusterList", "-h").code)
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	ns := closedAddr(t)
	cases := map[string][]string{
		"no NameServer":       {"clusterList"},
		"missing -t":          {"topicRoute", "-n", ns},
		"unknown flag":        {"topicList", "-n", ns, "-z"},
		"extra argument":      {"topicList", "-n", ns, "extra"},
		"bad -m":              {"updateOrderConf", "-n", ns, "-t", "T", "-m", "post"},
		"put without -v":      {"updateOrderConf", "-n", ns, "-t", "T", "-m", "put"},
		"one NameServer":      {"routeDiff", "-n", ns},
		"no controller":       {"getControllerMetaData"},
		"bad broker id":       {"electMaster", "-a", ns, "-b", "x", "-bn", "b", "-c", "c"},
		"clean without -c":    {"cleanBrokerMetadata", "-a", ns, "-bn", "b"},
		"clean bad ids":       {"cleanBrokerMetadata", "-a", ns, "-bn", "b", "-c", "c", "-b", "1;x"},
		"sync without -b/-c":  {"getSyncStateSet", "-a", ns},
		"bad timeout":         {"waitRoute", "-n", ns, "-t", "T", "--timeout", "soon"},
		"diagnose without -t": {"diagnose", "-n", ns},
	}
	for name, args := range cases {
		r := mqadmin(t, args...)
		require.Equal(t, exitUsage, r.code, "%s: %s", name, r.errOut)
		require.NotEmpty(t, r.errOut, name)
	}
}

func TestNameServerFromEnvironment(t *testing.T) {
	ns := startNS(t)
	t.Setenv("NAMESRV_ADDR", ns)
	r := mqadmin(t, "clusterList")
	require.Contains(t, requireOK(t, r), "#Cluster Name")
}

func TestUnreachableNameServerFails(t *testing.T) {
	t.Parallel()
	dead := closedAddr(t)
	for _, args := range [][]string{
		{"clusterList", "-n", dead},
		{"topicRoute", "-n", dead, "-t", "T"},
		{"updateKvConfig", "-n", dead, "-s", "ns", "-k", "k", "-v", "v"},
		{"getNamesrvConfig", "-n", dead},
		{"wipeWritePerm", "-n", dead, "-b", "broker-a"},
		{"getControllerMetaData", "-a", dead},
	} {
		r := mqadmin(t, args...)
		require.Equal(t, exitFail, r.code, args)
		require.Contains(t, r.errOut, dead, args)
		require.Contains(t, r.errOut, "unreachable", args)
	}
}
