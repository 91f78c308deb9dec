package namesrv

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/metrics/metricstest"
	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
	"github.com/rmqgo/nameserver/test/fakebroker"
)

// startMetricsServer starts a NameServer with metrics on a loopback port.
func startMetricsServer(t *testing.T, readyAfter int) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := startServer(t, func(c *config.NamesrvConfig) {
		c.MetricsExporterType = "PROM"
		c.MetricsPromExporterPort = 5557
		c.ReadyAfterBrokerRegistrationSeconds = readyAfter
	}, WithMetricsListener(ln))
	require.Equal(t, ln.Addr().String(), srv.MetricsAddr().String())
	return srv
}

func TestMetricsAfterTraffic(t *testing.T) {
	srv := startMetricsServer(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := fakebroker.New(fakebroker.Config{Topics: []wire.TopicConfig{fakebroker.Topic("TopicTest", 4)}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	_, err = b.Register(ctx, srv.Addr().String())
	require.NoError(t, err)

	c := dial(t, srv)
	for _, topic := range []string{"TopicTest", "TopicTest", "NoSuchTopic"} {
		invoke(t, c, remoting.NewRequest(remoting.GetRouteinfoByTopic, map[string]string{"topic": topic}, nil))
	}
	invoke(t, c, remoting.NewRequest(remoting.PutKVConfig,
		map[string]string{"namespace": "ORDER_TOPIC_CONFIG", "key": "TopicTest", "value": "broker-a:4"}, nil))
	invoke(t, c, remoting.NewRequest(9999, nil, nil))

	fs := metricstest.Scrape(t, srv.MetricsAddr().String())
	const p = "rocketmq_namesrv_"
	require.Equal(t, 2.0, fs.Sum(p+"requests_total", "code", "105", "response_code", "0"))
	require.Equal(t, 1.0, fs.Sum(p+"requests_total", "code", "105", "response_code", "17"))
	require.Equal(t, 1.0, fs.Sum(p+"requests_total", "code", "103", "response_code", "0"))
	require.Equal(t, 1.0, fs.Sum(p+"requests_total", "code", "other", "response_code", "3"))
	require.Equal(t, 2.0, fs.Sum(p+"request_duration_seconds_count", "code", "105", "response_code", "0"))
	require.Positive(t, fs.Sum(p+"request_duration_seconds_sum"))
	require.Equal(t, 1.0, fs.Sum(p+"kv_writes_total", "op", "put", "result", "ok"))
	require.Equal(t, 1.0, fs.Sum(p+"kv_keys"))
	require.Equal(t, 1.0, fs.Sum(p+"broker_registrations_total"))
	require.Equal(t, 1.0, fs.Sum(p+"brokers"))
	require.Equal(t, 1.0, fs.Sum(p+"clusters"))
	require.Equal(t, 1.0, fs.Sum(p+"live_brokers"))
	require.GreaterOrEqual(t, fs.Sum(p+"topics"), 2.0)
	require.Equal(t, 2.0, fs.Sum(p+"connections"), "the broker's and the client's")
	require.Equal(t, 2.0, fs.Sum(p+"connections_opened_total"))
	require.Equal(t, 1.0, fs.Sum(p+"ready"))
	require.True(t, fs.Has("go_goroutines"))
	require.True(t, fs.Has(p+"unregister_queue_depth"))
}

func TestMetricsFrameRejected(t *testing.T) {
	srv := startMetricsServer(t, 0)
	nc, err := net.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	_, err = nc.Write([]byte{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	require.NoError(t, err)
	_ = nc.Close()
	poll.Until(t, "the rejected frame counted", 10*time.Second, 10*time.Millisecond, func() error {
		fs := metricstest.Scrape(t, srv.MetricsAddr().String())
		if n := fs.Sum("rocketmq_namesrv_frames_rejected_total"); n != 1 {
			return fmt.Errorf("rocketmq_namesrv_frames_rejected_total=%v", n)
		}
		require.Equal(t, 0.0, fs.Sum("rocketmq_namesrv_connections"))
		return nil
	})
}

func TestReadyImmediatelyWithoutDelay(t *testing.T) {
	srv := startMetricsServer(t, 0)
	base := "http://" + srv.MetricsAddr().String()
	status, body := metricstest.Get(t, base+"/readyz")
	require.Equal(t, http.StatusOK, status, body)
	status, _ = metricstest.Get(t, base+"/healthz")
	require.Equal(t, http.StatusOK, status)
}

func TestReadyAfterBrokerRegistrationDelay(t *testing.T) {
	srv := startMetricsServer(t, 1)
	base := "http://" + srv.MetricsAddr().String()
	status, body := metricstest.Get(t, base+"/readyz")
	require.Equal(t, http.StatusServiceUnavailable, status)
	require.Contains(t, body, "readyAfterBrokerRegistrationSeconds=1")
	status, _ = metricstest.Get(t, base+"/healthz")
	require.Equal(t, http.StatusOK, status, "alive while not ready")
	metricstest.WaitStatus(t, base+"/readyz", http.StatusOK, 10*time.Second)
}

func TestReadinessDropsOnShutdown(t *testing.T) {
	srv := startMetricsServer(t, 0)
	require.NoError(t, srv.Ready())
	addr := srv.MetricsAddr().String()
	require.NoError(t, srv.Shutdown(context.Background()))
	require.EqualError(t, srv.Ready(), "shutting down")
	_, err := net.DialTimeout("tcp", addr, time.Second)
	require.Error(t, err, "endpoint closed with the server")
}

func TestMetricsOffByDefault(t *testing.T) {
	srv := startServer(t, nil)
	require.Nil(t, srv.MetricsAddr())
	require.Nil(t, srv.MetricsRegistry())
	require.NoError(t, srv.Ready())
}

func TestMetricsBindFailureNamesAddress(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	cfg := testConfig(t)
	cfg.MetricsExporterType = "PROM"
	cfg.MetricsPromExporterHost = "127.0.0.1"
	cfg.MetricsPromExporterPort = busy.Addr().(*net.TCPAddr).Port
	srv, err := New(cfg, testLogger(t))
	require.NoError(t, err)
	defer func() { require.NoError(t, srv.Shutdown(context.Background())) }()
	err = srv.Start()
	require.Error(t, err)
	require.Contains(t, err.Error(), busy.Addr().String())
}
