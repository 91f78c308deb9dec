package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// runtimeInfo is a GET_BROKER_RUNTIME_INFO table shaped like
// AdminBrokerProcessor.prepareRuntimeInfo's, without
// pageCacheLockTimeMills and the ack pool keys (an older broker).
func runtimeInfo() map[string]string {
	return map[string]string{
		"brokerVersionDesc": "V5_3_3", "brokerVersion": "479",
		"putTps": "12.5 11.0 10.0", "getTransferredTps": "3.25 2.0 1.0",
		"sendThreadPoolQueueSize": "1", "sendThreadPoolQueueHeadWaitTimeMills": "2",
		"pullThreadPoolQueueSize": "3", "pullThreadPoolQueueHeadWaitTimeMills": "4",
		"earliestMessageTimeStamp": strconv.FormatInt(time.Now().Add(-90*time.Minute).UnixMilli(), 10),
		"commitLogDiskRatio":       "0.25",
		"timerReadBehind":          "5", "timerOffsetBehind": "6", "timerCongestNum": "25000",
		"timerEnqueueTps": "1.5", "timerDequeueTps": "2.5", "brokerActive": "true",
		"msgPutTotalYesterdayMorning": "100", "msgPutTotalTodayMorning": "150", "msgPutTotalTodayNow": "175",
		"msgGetTotalYesterdayMorning": "10", "msgGetTotalTodayMorning": "30", "msgGetTotalTodayNow": "70",
	}
}

// clusterList fills its columns from the broker's runtime info as Java's
// ClusterListSubCommand formats them; a key the broker did not send prints
// as Java prints a null String ("null"), "N" for the ack pool.
func TestClusterListRuntimeColumns(t *testing.T) {
	t.Parallel()
	ns := startNS(t)
	cfg := topicBroker("broker-a")
	cfg.RuntimeInfo = runtimeInfo()
	a := startBroker(t, cfg, ns)
	out := requireOK(t, mqadmin(t, "clusterList", "-n", ns))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2)
	row := lines[1]
	require.Regexp(t, `^DefaultCluster\s+broker-a\s+0\s+`+regexp.QuoteMeta(a.Addr())+`\s+V5_3_3\s+`, row)
	require.Contains(t, row, "    12.50(1,2ms)")
	require.Contains(t, row, "     3.25(3,4ms|N,Nms)")
	require.Contains(t, row, "5-6(2.5w, 1.5, 2.5)")
	require.Regexp(t, `\s+null\s+1\.50\s+0\.2500\s+true$`, row)

	out = requireOK(t, mqadmin(t, "clusterList", "-n", ns, "-m"))
	require.Regexp(t, `(?m)^DefaultCluster\s+broker-a\s+50\s+20\s+25\s+40$`, out)
}

// Java parses the timer figures in one try block: the first missing one
// leaves it and the figures after it at 0.
func TestClusterListTimerColumnsStopAtFirstMissing(t *testing.T) {
	m := runtimeInfo()
	delete(m, "timerCongestNum")
	s := newBrokerStats(m)
	require.Equal(t, [3]int64{5, 6, 0}, [3]int64{s.timerReadBehind, s.timerOffsetBehind, s.timerCongest})
	require.Zero(t, s.timerEnqueueTps)
	require.Zero(t, s.timerDequeueTps)
}
