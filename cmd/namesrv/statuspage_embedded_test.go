//go:build embedded_controller

package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/browsertest"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/metrics/metricstest"
	"github.com/rmqgo/nameserver/test/ctlbroker"
)

// hostileSet is a broker set name a stranger may register.
const hostileSet = `<script>document.title="set"</script>`

// startEmbeddedPageNode runs startServers with the embedded Controller
// (one node) and starts a live two-broker set of each name through the
// wire (ctlbroker.StartSet): master elected, both in sync, registered
// with the NameServer, heartbeating.
func startEmbeddedPageNode(t *testing.T, sets ...string) pageNode {
	t.Helper()
	ctlAddr, raftAddr := freeAddr(t).String(), freeAddr(t).String()
	n := startPageNode(t, "enableControllerInNamesrv=true", "controllerDLegerGroup=g", "controllerDLegerSelfId=n0",
		"controllerDLegerPeers=n0-"+ctlAddr, "controllerRaftPeers=n0-"+raftAddr,
		"controllerStorePath="+filepath.Join(t.TempDir(), "ctl"))
	waitLeader(t, ctlAddr)
	for _, name := range sets {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		set, err := ctlbroker.StartSet(ctx, ctlbroker.Config{Name: name, Controllers: []string{ctlAddr},
			NameServers: []string{n.remoting}}, 2, time.Second)
		cancel()
		require.NoError(t, err, "broker set %s", name)
		t.Cleanup(func() { _ = set.Close() })
	}
	return n
}

// With the embedded Controller the page also shows the Raft leader, the
// members, the cluster version and each broker set with its master,
// master epoch and sync-state set.
func TestStatusPageShowsEmbeddedController(t *testing.T) {
	n := startEmbeddedPageNode(t, "set-a", hostileSet)
	var body string
	poll.Until(t, `strings.Contains(body, "Broker sets (2)")`, 10*time.Second, 100*time.Millisecond, poll.True(func() bool {
		_, body = metricstest.Get(t, n.page)
		return strings.Contains(body, "Broker sets (2)")
	}))
	for _, want := range []string{"NameServer with embedded Controller", "Controller Raft", "n0 (leader)",
		"<td>set-a</td>", "&lt;script&gt;document.title=&#34;set&#34;&lt;/script&gt;", "Cluster version",
		`<th>Live brokers</th><td class="n">4</td>`, "<td>1 (127.0.0.1:", "), 2 (127.0.0.1:"} {
		require.Contains(t, body, want)
	}
	require.NotContains(t, body, "<script")
	require.NotContains(t, body, `<span class="bad">none</span>`, "every set has a master")
}

// In a real headless browser the page of a NameServer with its embedded
// Controller renders the broker sets played through the wire.
func TestStatusPageInBrowserEmbeddedController(t *testing.T) {
	b := browsertest.Require(t)
	n := startEmbeddedPageNode(t, "set-a", "set-b", hostileSet)
	poll.Until(t, `strings.Contains(body, "Broker sets (3)")`, 10*time.Second, 100*time.Millisecond, poll.True(func() bool {
		_, body := metricstest.Get(t, n.page)
		return strings.Contains(body, "Broker sets (3)")
	}))
	dom := b.DOM(t, n.page)
	require.Contains(t, dom, "<title>RocketMQ NameServer with embedded Controller status</title>")
	for _, want := range []string{"<td>set-a</td>", "<td>set-b</td>", "&lt;script&gt;document.title=\"set\"&lt;/script&gt;",
		"n0 (leader)", "Controller Raft"} {
		require.Contains(t, dom, want)
	}
	require.NotContains(t, dom, "<script")
	b.Screenshot(t, n.page, "namesrv-embedded-controller-status.png")
}
