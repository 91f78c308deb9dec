package namesrv

import (
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/config"
)

// TestAttackTLSMetricsSniffStallsDoNotBlockOthers: metrics connections that
// send nothing, or one byte of a ClientHello, do not hold up Accept (the
// sniff runs on the connection's goroutine, not in the accept loop): a
// scrape beside them is served, and the server closes each stalled one
// (the HTTP server's header timeout bounds the sniff and the handshake).
func TestAttackTLSMetricsSniffStallsDoNotBlockOthers(t *testing.T) {
	f := newTLSFixture(t, config.TLSModeEnforcing)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := startServer(t, func(c *config.NamesrvConfig) { c.MetricsExporterType = "PROM" },
		WithMetricsListener(ln), WithTLS(f.manager(t)))
	addr := srv.MetricsAddr().String()
	var stalled []net.Conn
	for i := range 20 {
		nc, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { _ = nc.Close() })
		if i%2 == 1 {
			_, err = nc.Write([]byte{0x16})
			require.NoError(t, err)
		}
		stalled = append(stalled, nc)
	}
	secure := &http.Client{Transport: &http.Transport{TLSClientConfig: f.client()}, Timeout: 3 * time.Second}
	resp, err := secure.Get("https://" + addr + "/healthz")
	require.NoError(t, err, "a scrape beside stalled connections")
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	for _, nc := range stalled {
		require.NoError(t, nc.SetReadDeadline(time.Now().Add(20*time.Second)))
		_, err := nc.Read(make([]byte, 16))
		var ne net.Error
		require.Error(t, err)
		require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server never closed a stalled connection")
	}
}
