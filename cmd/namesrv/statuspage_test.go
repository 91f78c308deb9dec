package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/browsertest"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/internal/testlog"
	"github.com/rmqgo/nameserver/metrics/metricstest"
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// pageNode is a NameServer started as main starts it (startServers).
type pageNode struct {
	remoting, page string // host:port, http://host:port/
}

// startPageNode runs startServers with metrics on, on free loopback
// ports, and the extra properties; it stops when the test ends.
func startPageNode(t *testing.T, extra ...string) pageNode {
	t.Helper()
	dir := t.TempDir()
	remotingAddr, metricsAddr := freeAddr(t), freeAddr(t)
	lines := append([]string{"bindAddress=127.0.0.1", "listenPort=" + strconv.Itoa(remotingAddr.Port),
		"kvConfigPath=" + filepath.Join(dir, "kvConfig.json"), "metricsExporterType=PROM",
		"metricsPromExporterHost=127.0.0.1", "metricsPromExporterPort=" + strconv.Itoa(metricsAddr.Port)}, extra...)
	path := filepath.Join(dir, "namesrv.properties")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	cfg, err := config.Load(path)
	require.NoError(t, err)
	stop, err := startServers(cfg, nil, testlog.New(t, "namesrv"))
	require.NoError(t, err)
	t.Cleanup(func() { require.Equal(t, 0, stop()) })
	return pageNode{remoting: remotingAddr.String(), page: "http://" + metricsAddr.String() + "/"}
}

// hostileBroker is a broker name a stranger may register.
const hostileBroker = `<script>document.title="owned"</script><img src=x onerror=alert(1)>`

// registerBrokers registers each name as a master of cluster through the
// wire (REGISTER_BROKER from a fake broker) with two topics of its own.
func registerBrokers(t *testing.T, ns, cluster string, names ...string) {
	t.Helper()
	for _, name := range names {
		b, err := fakebroker.New(fakebroker.Config{ClusterName: cluster, BrokerName: name, NameServers: []string{ns},
			Topics: []wire.TopicConfig{fakebroker.Topic("orders-"+name, 4), fakebroker.Topic("audit-"+name, 2)}})
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		require.NoError(t, b.RegisterAll(ctx))
		cancel()
	}
}

// The status page of a NameServer started as main starts it shows the
// brokers registered through the wire, escaped, and the node's listeners.
func TestStatusPageServedByNamesrv(t *testing.T) {
	n := startPageNode(t)
	registerBrokers(t, n.remoting, "DefaultCluster", "broker-a", "broker-b", hostileBroker)
	var body string
	poll.Until(t, `status == http.StatusOK && strings.Contains(body, "broker-b")`, 10*time.Second, 100*time.Millisecond, poll.True(func() bool {
		var status int
		status, body = metricstest.Get(t, n.page)
		return status == http.StatusOK && strings.Contains(body, "broker-b")
	}))
	for _, want := range []string{"RocketMQ NameServer", "NameServer remoting", n.remoting, "<td>broker-a</td>",
		"&lt;script&gt;document.title=&#34;owned&#34;&lt;/script&gt;", " s ago"} {
		require.Contains(t, body, want)
	}
	require.NotContains(t, body, "<script")
	require.NotContains(t, body, "<img")
	status, _ := metricstest.Get(t, strings.TrimSuffix(n.page, "/")+"/healthz")
	require.Equal(t, http.StatusOK, status)
	resp, err := http.Post(n.page, "text/plain", strings.NewReader("x"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "the page changes nothing")
}

// In a real headless browser the page renders the brokers registered
// through the wire; the hostile name shows as text and runs nothing.
func TestStatusPageInBrowserNamesrv(t *testing.T) {
	b := browsertest.Require(t)
	n := startPageNode(t)
	names := []string{"broker-a", "broker-b", hostileBroker}
	registerBrokers(t, n.remoting, "DefaultCluster", names...)
	for i := range 30 {
		registerBrokers(t, n.remoting, "BulkCluster", fmt.Sprintf("bulk-%02d", i))
	}
	poll.Until(t, `strings.Contains(body, "bulk-29")`, 10*time.Second, 100*time.Millisecond, poll.True(func() bool {
		_, body := metricstest.Get(t, n.page)
		return strings.Contains(body, "bulk-29")
	}))
	dom := b.DOM(t, n.page)
	require.Contains(t, dom, "<title>RocketMQ NameServer status</title>", "a script changed the title")
	require.Contains(t, dom, "<td>broker-a</td>")
	require.Contains(t, dom, "<td>bulk-29</td>")
	require.Contains(t, dom, "&lt;script&gt;document.title=\"owned\"&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;")
	require.NotContains(t, dom, "<script")
	require.NotContains(t, dom, "<img")
	b.Screenshot(t, n.page, "namesrv-status.png")
}
