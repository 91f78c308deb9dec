package namesrv

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
)

func getNsAddr(t *testing.T, srv *Server) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + srv.MetricsAddr().String() + "/rocketmq/nsaddr")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// Without nsAddrList or nsAddrFile the metrics listener has no address
// service: 404.
func TestNsAddrOffByDefault(t *testing.T) {
	code, _ := getNsAddr(t, startMetricsServer(t, 0))
	require.Equal(t, http.StatusNotFound, code)
}

func TestNsAddrListServed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := startServer(t, func(c *config.NamesrvConfig) {
		c.MetricsExporterType = "PROM"
		c.NsAddrList = "10.0.0.1:9876;10.0.0.2:9876"
	}, WithMetricsListener(ln))
	code, body := getNsAddr(t, srv)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "10.0.0.1:9876;10.0.0.2:9876", body)
}

// A file that is gone by the time the server starts stops the start with
// the key named, and the metrics listener handed in is closed.
func TestNsAddrFileGoneAtStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "nsaddr")
	require.NoError(t, os.WriteFile(file, []byte("10.0.0.1:9876"), 0o644))
	cfg := testConfig(t)
	cfg.MetricsExporterType = "PROM"
	cfg.NsAddrFile = file
	srv, err := New(cfg, testLogger(t), WithMetricsListener(ln))
	require.NoError(t, err)
	require.NoError(t, os.Remove(file))
	require.ErrorContains(t, srv.Start(), "nsAddrFile")
	_, err = ln.Accept()
	require.Error(t, err, "listener closed")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.Shutdown(ctx))
}
