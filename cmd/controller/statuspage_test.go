//go:build embedded_controller

package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/metrics/metricstest"
)

// The standalone controller's metrics listener serves the status page at
// / with its listeners and Raft state; the other paths are unchanged.
func TestStatusPageServedByStandaloneController(t *testing.T) {
	n := startTestNode(t, "metricsExporterType=PROM", "metricsPromExporterHost=127.0.0.1", "metricsPromExporterPort=0")
	base := "http://" + n.ep.Addr().String()
	var body string
	poll.Until(t, `status == http.StatusOK && strings.Contains(body, "n0 (leader)")`, 15*time.Second, 100*time.Millisecond, poll.True(func() bool {
		var status int
		status, body = metricstest.Get(t, base+"/")
		return status == http.StatusOK && strings.Contains(body, "n0 (leader)")
	}))
	for _, want := range []string{"RocketMQ Controller", "Controller remoting", n.ctl.Addr(), "Controller Raft",
		"metrics (this page)", n.ep.Addr().String(), "Broker sets (0)"} {
		require.Contains(t, body, want)
	}
	require.NotContains(t, body, "<h2>NameServer</h2>")
	status, _ := metricstest.Get(t, base+"/healthz")
	require.Equal(t, http.StatusOK, status)
}
