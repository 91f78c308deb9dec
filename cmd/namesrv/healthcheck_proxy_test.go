package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
)

// nonLoopbackIPv4 returns an IPv4 address of this host other than
// loopback, or skips the test.
func nonLoopbackIPv4(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() {
			return ipn.IP.String()
		}
	}
	t.Skip("no non-loopback IPv4 address")
	return ""
}

// TestHealthcheckIgnoresProxyEnv: with the metrics listener on a
// host address (bindAddress set to the pod's IP) and HTTP_PROXY in the
// container's environment, as corporate images have, -healthcheck sent
// its GET /healthz to the proxy (http.DefaultClient honours HTTP_PROXY for
// any host but loopback) and reported a healthy NameServer unhealthy. It
// asks the NameServer directly.
func TestHealthcheckIgnoresProxyEnv(t *testing.T) {
	host := nonLoopbackIPv4(t)
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
		}
	}))
	_ = srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1") // nothing listens there
	t.Setenv("NO_PROXY", "")
	cfg := config.Default()
	cfg.BindAddress = host
	cfg.MetricsExporterType, cfg.MetricsPromExporterPort = "PROM", ln.Addr().(*net.TCPAddr).Port
	var stderr strings.Builder
	require.Equal(t, 0, healthcheck(cfg, &stderr), stderr.String())
}
