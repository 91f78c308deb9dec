package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/metrics/metricstest"
)

func startEndpoint(t *testing.T, reg *Registry) *Endpoint {
	t.Helper()
	e, err := Listen(EndpointConfig{Addr: "127.0.0.1:0", Registry: reg})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Shutdown(context.Background())) })
	return e
}

func TestEndpointServesMetricsAndProbes(t *testing.T) {
	reg := NewProcessRegistry()
	e := startEndpoint(t, reg)
	base := "http://" + e.Addr().String()
	fs := metricstest.Scrape(t, e.Addr().String())
	require.True(t, fs.Has("go_goroutines"))

	status, body := metricstest.Get(t, base+"/healthz")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "ok\n", body)
	status, _ = metricstest.Get(t, base+"/readyz")
	require.Equal(t, http.StatusOK, status, "no checks: ready")

	var reason error = errors.New("warming up")
	e.AddReadiness("warmup", func() error { return reason })
	status, body = metricstest.Get(t, base+"/readyz")
	require.Equal(t, http.StatusServiceUnavailable, status)
	require.Equal(t, "not ready: warmup: warming up\n", body)

	status, _ = metricstest.Get(t, base+"/nope")
	require.Equal(t, http.StatusNotFound, status)
}

func TestEndpointBindFailureNamesAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	_, err = Listen(EndpointConfig{Addr: ln.Addr().String()})
	require.Error(t, err)
	require.Contains(t, err.Error(), ln.Addr().String())
}

func TestEndpointShutdownClosesListener(t *testing.T) {
	e, err := Listen(EndpointConfig{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	addr := e.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, e.Shutdown(ctx))
	_, err = net.DialTimeout("tcp", addr, time.Second)
	require.Error(t, err)
}

func TestExporterAddr(t *testing.T) {
	addr, on := ExporterAddr("PROM", "", "0.0.0.0", 5557)
	require.True(t, on)
	require.Equal(t, "0.0.0.0:5557", addr)
	addr, on = ExporterAddr("DISABLE", "::1", "0.0.0.0", 9)
	require.False(t, on)
	require.True(t, strings.HasPrefix(addr, "[::1]:"))
}
