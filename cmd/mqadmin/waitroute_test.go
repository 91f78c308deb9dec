package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/namesrv/route"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

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
	r := mqadmin(t, "waitRoute", "-n", nsList(nss...), "-t", "T", "--timeout", "300ms", "--interval", "50ms")
	require.Equal(t, exitFail, r.code)
	require.Regexp(t, nss[0]+`\s+ready\s+route names brokers \[broker-a\]`, r.out)
	require.Regexp(t, nss[1]+`\s+waiting\s+.*code 17`, r.out)
	require.Contains(t, r.errOut, "timed out after 300ms waiting for the route of T")
}

func TestWaitRouteWritableTimesOutOnReadOnlyRoute(t *testing.T) {
	t.Parallel()
	ns := startNS(t)
	ro := fakebroker.Topic("T", 4)
	ro.Perm = route.PermRead
	startBroker(t, topicBroker("broker-a", ro), ns)
	requireOK(t, mqadmin(t, "waitRoute", "-n", ns, "-t", "T", "--timeout", "1"))
	r := mqadmin(t, "waitRoute", "-n", ns, "-t", "T", "--writable", "--timeout", "200ms", "--interval", "50ms")
	require.Equal(t, exitFail, r.code)
	require.Contains(t, r.out, "route has no writable queue on a master")
}
