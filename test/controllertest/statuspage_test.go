//go:build embedded_controller

package controllertest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/browsertest"
	"github.com/rmqgo/nameserver/metrics/metricstest"
	"github.com/rmqgo/nameserver/metrics/statuspage"
	"github.com/rmqgo/nameserver/test/ctlbroker"
)

// serveStatusPage serves the status page of nd's controller as the
// standalone controller mounts it, and returns its URL.
func serveStatusPage(t *testing.T, nd *node) string {
	t.Helper()
	page := statuspage.New()
	page.SetController(nd.ctl)
	mux := http.NewServeMux()
	mux.Handle(statuspage.Pattern, page)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// In a real headless browser the status page of a follower of a
// three-node Controller cluster shows the leader, the three members and
// each live broker set's master, master epoch and sync-state set, the
// sets started through the wire.
func TestStatusPageInBrowserControllerCluster(t *testing.T) {
	b := browsertest.Require(t)
	c := startCluster(t, 3, nil)
	leader := c.leader()
	names := []string{"orders-set", "audit-set", `<script>document.title="x"</script>`}
	for _, name := range names {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		set, err := ctlbroker.StartSet(ctx, ctlbroker.Config{Name: name, Controllers: c.addrs()}, 3, time.Second)
		cancel()
		require.NoError(t, err, "broker set %s", name)
		t.Cleanup(func() { _ = set.Close() })
	}
	url := serveStatusPage(t, c.follower())
	require.Eventually(t, func() bool {
		_, body := metricstest.Get(t, url)
		return strings.Contains(body, fmt.Sprintf("Broker sets (%d)", len(names))) &&
			!strings.Contains(body, `<span class="bad">none</span>`)
	}, waitLimit, 50*time.Millisecond, "the follower applied every set and its master")
	dom := b.DOM(t, url)
	require.Contains(t, dom, "<title>RocketMQ Controller status</title>")
	for _, want := range []string{"<td>orders-set</td>", "<td>audit-set</td>",
		"&lt;script&gt;document.title=\"x\"&lt;/script&gt;", leader.id + " (leader)",
		"<td>n0", "<td>n1", "<td>n2", "<th>Raft state</th><td>Follower</td>"} {
		require.Contains(t, dom, want)
	}
	require.NotContains(t, dom, "<script")
	require.NotContains(t, dom, `<span class="bad">none</span>`, "every set has a master")
	b.Screenshot(t, url, "controller-cluster-follower-status.png")
}

// ControllerStatus copies at most the sets asked, in name order, counts
// them all, and names each master and sync-state set with addresses.
func TestControllerStatusCutsSetsToLimit(t *testing.T) {
	c := startCluster(t, 1, nil)
	nd := c.leader()
	var masters []string
	for _, name := range []string{"set-c", "set-a", "set-b"} {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		set, err := ctlbroker.StartSet(ctx, ctlbroker.Config{Name: name, Controllers: c.addrs()}, 2, time.Second)
		cancel()
		require.NoError(t, err, "broker set %s", name)
		t.Cleanup(func() { _ = set.Close() })
		masters = append(masters, set.Brokers[0].Addr())
	}
	st := nd.ctl.ControllerStatus(2)
	require.Equal(t, 3, st.TotalSets)
	require.Len(t, st.Sets, 2)
	require.Equal(t, []string{"set-a", "set-b"}, []string{st.Sets[0].Name, st.Sets[1].Name})
	a := st.Sets[0]
	require.True(t, a.HasMaster)
	require.Equal(t, masters[1], a.MasterAddr)
	require.Len(t, a.SyncStateSet, 2)
	require.Equal(t, masters[1], a.SyncStateSet[0].Addr)
	require.Equal(t, nd.id, st.SelfID)
	require.Equal(t, nd.id, st.LeaderID)
	require.Equal(t, "Leader", st.RaftState)
	require.Len(t, st.Members, 1)
	require.Equal(t, nd.remoting, st.Members[0].Addr)
	require.Empty(t, nd.ctl.ControllerStatus(0).Sets)
}
