package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// diagnose runs diagnose --json and decodes the result.
func diagnose(t *testing.T, wantCode int, args ...string) *admin.Diagnosis {
	t.Helper()
	r := mqadmin(t, append([]string{"diagnose", "--json", "--probeTimeout", "300ms"}, args...)...)
	require.Equal(t, wantCode, r.code, "stdout:\n%s\nstderr:\n%s", r.out, r.errOut)
	d := &admin.Diagnosis{}
	require.NoError(t, json.Unmarshal([]byte(r.out), d))
	require.Equal(t, wantCode == exitOK, d.Sendable)
	return d
}

// finding returns the finding with code, failing when there is none.
func finding(t *testing.T, d *admin.Diagnosis, code string) admin.Finding {
	t.Helper()
	for _, f := range d.Findings {
		if f.Code == code {
			return f
		}
	}
	require.Failf(t, "finding missing", "no %s in %+v", code, d.Findings)
	return admin.Finding{}
}

func TestDiagnoseHealthyTopic(t *testing.T) {
	t.Parallel()
	ns := startNS(t)
	startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), ns)
	d := diagnose(t, exitOK, "-n", ns, "-t", "T")
	require.Empty(t, d.Findings)
	out := requireOK(t, mqadmin(t, "diagnose", "-n", ns, "-t", "T"))
	require.Contains(t, out, "no problem found")
	require.Contains(t, out, "#Result\ttopic T is sendable")
}

func TestDiagnoseTopicAbsentEverywhere(t *testing.T) {
	t.Parallel()
	nss := startNSs(t, 2)
	startBroker(t, topicBroker("broker-a", fakebroker.Topic(admin.AutoCreateTopicKey, 8)), nss...)
	d := diagnose(t, exitFail, "-n", nsList(nss...), "-t", "Missing")
	f := finding(t, d, admin.FindingTopicAbsent)
	require.Equal(t, admin.SeverityError, f.Severity)
	require.Contains(t, f.Summary, "not provisioned, or no broker registered it")
	require.Contains(t, f.Evidence[0], "TOPIC_NOT_EXIST")
	require.Contains(t, f.Evidence, "registered brokers by cluster: DefaultCluster=[broker-a]")
	require.Contains(t, f.Evidence[len(f.Evidence)-1], "TBW102 is routed on brokers [broker-a]: autoCreateTopicEnable is on")
	r := mqadmin(t, "diagnose", "-n", nsList(nss...), "-t", "Missing")
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.out, "[ERROR] topic-absent: topic Missing is absent on every NameServer")
	require.Contains(t, r.out, "#Result\ttopic Missing is NOT sendable")
}

func TestDiagnoseTopicAbsentOnSomeNameServers(t *testing.T) {
	t.Parallel()
	nss := startNSs(t, 2)
	startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), nss[0])
	d := diagnose(t, exitOK, "-n", nsList(nss...), "-t", "T")
	f := finding(t, d, admin.FindingTopicPartlyAbsent)
	require.Contains(t, f.Summary, "absent on "+nss[1])
	require.Contains(t, f.Evidence, nss[0]+": route names brokers [broker-a]")
}

func TestDiagnoseUnreachableNameServer(t *testing.T) {
	t.Parallel()
	ns, dead := startNS(t), closedAddr(t)
	startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), ns)
	d := diagnose(t, exitOK, "-n", nsList(dead, ns), "-t", "T")
	f := finding(t, d, admin.FindingNameServerUnreachable)
	require.Equal(t, admin.SeverityWarning, f.Severity)
	require.Contains(t, f.Summary, dead)
	d = diagnose(t, exitFail, "-n", dead, "-t", "T")
	require.Equal(t, admin.SeverityError, finding(t, d, admin.FindingNameServerUnreachable).Severity)
}

func TestDiagnoseEndpointRefusesTCP(t *testing.T) {
	t.Parallel()
	ns, dead := startNS(t), closedAddr(t)
	b, err := fakebroker.New(topicBroker("broker-a", fakebroker.Topic("T", 4)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	registerAs(t, b, ns, dead)
	d := diagnose(t, exitFail, "-n", ns, "-t", "T")
	f := finding(t, d, admin.FindingEndpointUnreachable)
	require.Equal(t, admin.SeverityError, f.Severity)
	require.Contains(t, f.Summary, "broker broker-a (id 0) at "+dead+" is in the route but does not accept TCP connections")
	require.Contains(t, f.Hint, "brokerIP1")
	require.Contains(t, f.Hint, "within 120 s of its last registration")
	require.Contains(t, f.Hint, "~30 s")
	require.Contains(t, f.Evidence[0], "connection refused")
	require.Equal(t, []admin.Probe{{Addr: dead, Error: d.Probes[0].Error}}, d.Probes)
}

func TestDiagnoseBrokerNoLongerAnswers(t *testing.T) {
	t.Parallel()
	ns, silent := startNS(t), silentAddr(t)
	b, err := fakebroker.New(topicBroker("broker-a", fakebroker.Topic("T", 4)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	registerAs(t, b, ns, silent)
	d := diagnose(t, exitFail, "-n", ns, "-t", "T")
	f := finding(t, d, admin.FindingBrokerNotAnswering)
	require.Contains(t, f.Summary, "accepts TCP but no longer answers requests, yet stays in the route")
	require.Contains(t, f.Hint, "within 120 s of its last registration by default")
	require.Contains(t, f.Hint, "Clients cache routes for ~30 s")
	require.Contains(t, f.Evidence[0], "no reply within 300ms")
	require.True(t, d.Probes[0].AcceptsTCP)
}

func TestDiagnoseNoWritableQueue(t *testing.T) {
	t.Parallel()
	ns := startNS(t)
	ro := fakebroker.Topic("T", 4)
	ro.Perm = wire.PermRead
	startBroker(t, topicBroker("broker-a", ro), ns)
	d := diagnose(t, exitFail, "-n", ns, "-t", "T")
	f := finding(t, d, admin.FindingNoWritableQueue)
	require.Contains(t, f.Evidence[0], "perm=4(R--)")
	require.Contains(t, f.Hint, "addWritePerm")
	requireOK(t, mqadmin(t, "addWritePerm", "-n", ns, "-b", "broker-a"))
	diagnose(t, exitOK, "-n", ns, "-t", "T")
}

func TestDiagnoseAutoCreateSkew(t *testing.T) {
	t.Parallel()
	ns := startNS(t)
	tbw := fakebroker.Topic(admin.AutoCreateTopicKey, 8)
	startBroker(t, topicBroker("broker-a", tbw, fakebroker.Topic("T", 4)), ns)
	startBroker(t, topicBroker("broker-b", tbw), ns)
	d := diagnose(t, exitOK, "-n", ns, "-t", "T")
	f := finding(t, d, admin.FindingAutoCreateSkew)
	require.Equal(t, "topic T lives on only some brokers of cluster DefaultCluster: missing on broker-b", f.Summary)
	require.Contains(t, f.Evidence, "cluster DefaultCluster has brokers [broker-a,broker-b]")
	require.Contains(t, f.Evidence[2], "TBW102 is routed on brokers [broker-a,broker-b]")
	require.Contains(t, f.Hint, "autoCreateTopicEnable is on")
}

func TestDiagnoseControllerWithoutLeader(t *testing.T) {
	t.Parallel()
	ns, fc := startNS(t), newFakeController(t)
	fc.setLeader("")
	startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), ns)
	d := diagnose(t, exitOK, "-n", ns, "-t", "T", "-a", fc.addr)
	f := finding(t, d, admin.FindingControllerNoLeader)
	require.Contains(t, f.Evidence[0], fc.addr+": group=group1 isLeader=false controllerLeaderAddress=<none>")
	d = diagnose(t, exitOK, "-n", ns, "-t", "T", "-a", closedAddr(t))
	finding(t, d, admin.FindingControllerUnreachable)
}

func TestDiagnoseBrokerSetWithoutMaster(t *testing.T) {
	t.Parallel()
	ns, fc := startNS(t), newFakeController(t)
	fc.setSyncBody(noMasterSyncStateData)
	slave := topicBroker("broker-a", fakebroker.Topic("T", 4))
	slave.BrokerID = 1
	startBroker(t, slave, ns)
	d := diagnose(t, exitFail, "-n", ns, "-t", "T", "-a", fc.addr)
	f := finding(t, d, admin.FindingControllerNoMaster)
	require.Equal(t, "broker set broker-a has no master in the controller", f.Summary)
	require.Contains(t, f.Evidence, "not in sync: 1@127.0.0.1:30911(dead)")
	finding(t, d, admin.FindingNoMasterInRoute)
	fc.setSyncBody(goldenSyncStateData)
	d = diagnose(t, exitFail, "-n", ns, "-t", "T", "-a", fc.addr)
	for _, f := range d.Findings {
		require.NotEqual(t, admin.FindingControllerNoMaster, f.Code)
	}
}

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

func TestWaitRouteReady(t *testing.T) {
	t.Parallel()
	nss := startNSs(t, 2)
	startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), nss...)
	out := requireOK(t, mqadmin(t, "waitRoute", "-n", nsList(nss...), "-t", "T", "--writable", "--timeout", "5s"))
	require.Contains(t, out, "route of T ready on 2 NameServers after ")
}

func TestWaitRouteWaitsForTheRegistration(t *testing.T) {
	t.Parallel()
	nss := startNSs(t, 2)
	b, err := fakebroker.New(fakebroker.Config{BrokerName: "broker-a", NameServers: nss,
		Topics: []fakebroker.TopicConfig{fakebroker.Topic("T", 4)}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	done := make(chan result, 1)
	go func() {
		done <- mqadmin(t, "waitRoute", "-n", nsList(nss...), "-t", "T", "--timeout", "15s", "--interval", "20ms", "--json")
	}()
	_, err = b.Register(testCtx(t), nss[0])
	require.NoError(t, err)
	_, err = b.Register(testCtx(t), nss[1])
	require.NoError(t, err)
	r := <-done
	requireOK(t, r)
	var res admin.WaitResult
	require.NoError(t, json.Unmarshal([]byte(r.out), &res))
	require.True(t, res.Ready)
	require.Len(t, res.Statuses, 2)
}

func TestWaitRouteTimesOut(t *testing.T) {
	t.Parallel()
	nss := startNSs(t, 2)
	startBroker(t, topicBroker("broker-a", fakebroker.Topic("T", 4)), nss[0])
	r := mqadmin(t, "waitRoute", "-n", nsList(nss...), "-t", "T", "--timeout", "6s", "--interval", "50ms")
	require.Equal(t, exitFail, r.code)
	require.Regexp(t, nss[0]+`\s+ready\s+route names brokers \[broker-a\]`, r.out)
	require.Regexp(t, nss[1]+`\s+waiting\s+.*code 17`, r.out)
	require.Contains(t, r.errOut, "timed out after 6s waiting for the route of T")
}

// The timeouts leave room for a loaded machine (a -race process under a
// load of 8 on two cores stalled 3 s before its first lookup): the verdict is only read
// after the time-out, so a slow first lookup must still be answered.
func TestWaitRouteWritableTimesOutOnReadOnlyRoute(t *testing.T) {
	t.Parallel()
	ns := startNS(t)
	ro := fakebroker.Topic("T", 4)
	ro.Perm = wire.PermRead
	startBroker(t, topicBroker("broker-a", ro), ns)
	requireOK(t, mqadmin(t, "waitRoute", "-n", ns, "-t", "T", "--timeout", "1"))
	r := mqadmin(t, "waitRoute", "-n", ns, "-t", "T", "--writable", "--timeout", "6s", "--interval", "50ms")
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.out, "route has no writable queue on a master")
}
