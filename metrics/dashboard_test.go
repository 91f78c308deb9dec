package metrics

import (
	"encoding/json"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDashboardUsesExportedMetrics checks that every series name the
// Grafana dashboard queries is one this package exports.
func TestDashboardUsesExportedMetrics(t *testing.T) {
	data, err := os.ReadFile("../deploy/grafana/namesrv-dashboard.json")
	require.NoError(t, err)
	var dash struct {
		Panels []struct {
			Targets []struct{ Expr string } `json:"targets"`
		} `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(data, &dash))
	exported := parse(t, fullRegistry())
	names := regexp.MustCompile(`\b(?:rocketmq|go|process)_[a-z_]+`)
	used := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			for _, name := range names.FindAllString(tg.Expr, -1) {
				if runtime.GOOS != "linux" && strings.HasPrefix(name, "process_") {
					continue // from /proc
				}
				require.True(t, exported.Has(name), "dashboard queries %s, which is not exported", name)
				used++
			}
		}
	}
	require.Positive(t, used)
}

// fullRegistry has every family this package exports, each with a series.
func fullRegistry() *Registry {
	reg := NewProcessRegistry()
	n := NewNamesrv(reg, NamesrvSource{
		Routes: func() RouteStats { return RouteStats{} },
		KV:     func() (int, int) { return 0, 0 },
		Ready:  func() error { return nil },
	})
	n.Remoting.RequestDone(105, 0, time.Millisecond)
	n.Remoting.ConnOpened()
	n.Remoting.FrameRejected("bad_header")
	n.KVWrite(KVPut, nil)
	c := NewController(reg)
	c.SetSource(fakePeerSource{fakeSource: fakeSource{stats: map[string]string{"state": "Leader", "term": "1", "commit_index": "1",
		"applied_index": "1", "last_contact": "0", "leader_id": "n0"}, epochs: map[string]int32{"b": 1}},
		peers: []RaftPeerErrorCount{{Peer: "n1", Kind: "heartbeat", Failed: 1}}})
	c.Remoting.RequestDone(1002, 0, time.Millisecond)
	c.Remoting.ConnOpened()
	c.ElectionDone("broker", 0, time.Millisecond)
	c.LeadershipChanged(true)
	c.Heartbeat()
	c.NotifySent(nil)
	c.BrokersEvicted(1)
	return reg
}
