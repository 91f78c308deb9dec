package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDefaultIsValid(t *testing.T) {
	require.NoError(t, Default().Validate())
}

func TestValidateReportsEveryBrokenRule(t *testing.T) {
	c := Default()
	c.ListenPort = 70000
	c.DefaultThreadPoolNums = 0
	c.ClientRequestThreadPoolQueueCapacity = -1
	c.ScanNotActiveBrokerInterval = 0
	c.FrameMaxLength = 1024
	c.KVConfigPath = ""
	c.ServerWorkerThreads = 0
	c.WriteBufferHighWaterMark, c.WriteBufferLowWaterMark = 10, 20
	c.MetricsExporterType = "STATSD"

	err := c.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	requireKeysNamed(t, err,
		"listenPort (70000) must be between 0 and 65535",
		"defaultThreadPoolNums (0) must be between 1 and 1024",
		"clientRequestThreadPoolQueueCapacity (-1) must be between 1 and 1000000",
		"scanNotActiveBrokerInterval (0) must be between 100 and 600000",
		"frameMaxLength (1024) must be between 1048576 and 1073741824",
		"kvConfigPath must not be empty",
		"serverWorkerThreads (0) must be between 1 and 1024",
		"writeBufferLowWaterMark (20) must not exceed writeBufferHighWaterMark (10)",
		"metricsExporterType (STATSD)")
	require.Equal(t, 9, countLines(err))
}

func TestValidatePromPortCollision(t *testing.T) {
	c := Default()
	c.MetricsExporterType = "PROM"
	require.NoError(t, c.Validate())
	require.Equal(t, "0.0.0.0:5557", c.MetricsAddr())
	c.MetricsPromExporterPort = 9876
	requireKeysNamed(t, c.Validate(), "metricsPromExporterPort")
	c.MetricsPromExporterHost = "127.0.0.1"
	requireKeysNamed(t, c.Validate(), "metricsPromExporterPort", "collides")
}

func TestCollides(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"127.0.0.1:9876", "127.0.0.1:9876", true},
		{"127.0.0.1:9876", "0.0.0.0:9876", true},
		{"10.0.0.1:9876", "[::]:9876", true},
		{":9876", "10.0.0.1:9876", true},
		{"localhost:9876", "127.0.0.1:9876", true},
		{"10.0.0.1:9876", "10.0.0.2:9876", false},
		{"127.0.0.1:9876", "127.0.0.1:9878", false},
		{"0.0.0.0:0", "0.0.0.0:0", false},
	} {
		require.Equal(t, tc.want, collides(tc.a, tc.b), "%s vs %s", tc.a, tc.b)
	}
}

func TestHolder(t *testing.T) {
	c := Default()
	h := NewHolder(c)
	require.Same(t, c, h.Load())
	n, err := c.ApplyUpdate([]byte("orderMessageEnable=true"))
	require.NoError(t, err)
	h.Store(n)
	require.True(t, h.Load().OrderMessageEnable)
	require.False(t, c.OrderMessageEnable)
}
