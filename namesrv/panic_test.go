package namesrv

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/metrics/metricstest"
	"github.com/rmqgo/nameserver/remoting"
)

// Request codes no processor uses, for the injected panics.
const (
	codeLanePanic     int32 = 9001
	codeRemotingPanic int32 = 9002
)

// TestRecoveredPanicsAreCounted: a panic on the registration lane and one
// in a plain handler each answer SYSTEM_ERROR, leave the server serving,
// and count in rocketmq_namesrv_panics_total{where}.
func TestRecoveredPanicsAreCounted(t *testing.T) {
	srv := startMetricsServer(t, 0)
	const p = "rocketmq_namesrv_panics_total"
	fs := metricstest.Scrape(t, srv.MetricsAddr().String())
	require.True(t, fs.Has(p), "exported before any panic")
	require.Zero(t, fs.Sum(p))

	boom := func(*remoting.Conn, *remoting.Command) (*remoting.Command, error) { panic("injected") }
	srv.rs.Register(codeLanePanic, srv.lane.handler(boom))
	srv.rs.Register(codeRemotingPanic, boom)
	c := dial(t, srv)
	for _, code := range []int32{codeLanePanic, codeRemotingPanic, codeLanePanic} {
		resp := invoke(t, c, remoting.NewRequest(code, nil, nil))
		require.Equal(t, remoting.SystemError, resp.Code)
		require.Contains(t, resp.Remark, "injected")
	}
	fs = metricstest.Scrape(t, srv.MetricsAddr().String())
	require.Equal(t, 2.0, fs.Sum(p, "where", "registration_lane"))
	require.Equal(t, 1.0, fs.Sum(p, "where", "remoting"))

	resp := invoke(t, c, remoting.NewRequest(remoting.GetAllTopicListFromNameserver, nil, nil))
	require.Equal(t, remoting.Success, resp.Code, "still serving after the panics")
}
